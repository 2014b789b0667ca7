robustness tests/cases/eofm/late_rule.yaml
