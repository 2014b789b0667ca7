robustness tests/cases/fsp/shift.yaml
