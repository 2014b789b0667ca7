robustness tests/cases/eofm/coffee_budget1.yaml
