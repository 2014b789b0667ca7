robustness tests/cases/fsp/undefined.yaml
