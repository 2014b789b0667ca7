robustness tests/cases/fsp/aut_bad.yaml
