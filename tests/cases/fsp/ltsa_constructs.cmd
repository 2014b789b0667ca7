robustness tests/cases/fsp/ltsa_constructs.yaml
