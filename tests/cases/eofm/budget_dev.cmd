robustness tests/cases/eofm/budget_dev.yaml
