robustness tests/cases/fsp/range.yaml
