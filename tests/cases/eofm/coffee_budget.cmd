robustness tests/cases/eofm/coffee_budget.yaml
