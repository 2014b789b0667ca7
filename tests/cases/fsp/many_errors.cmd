robustness tests/cases/fsp/many_errors.yaml
