robustness tests/cases/fsp/aut_name.yaml
