robustness tests/cases/eofm/bad_operator.yaml
