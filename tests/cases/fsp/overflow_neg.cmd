robustness tests/cases/fsp/overflow_neg.yaml
