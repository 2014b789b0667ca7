robustness tests/cases/fsp/fluent.yaml
