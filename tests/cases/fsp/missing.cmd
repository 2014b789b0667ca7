robustness tests/cases/fsp/missing.yaml
