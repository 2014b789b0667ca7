robustness tests/cases/eofm/bad_rule.yaml
