robustness tests/cases/eofm/undeclared_action.yaml
