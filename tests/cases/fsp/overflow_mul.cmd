robustness tests/cases/fsp/overflow_mul.yaml
