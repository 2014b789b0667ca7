robustness tests/cases/eofm/budget.yaml
