robustness tests/cases/fsp/empty_range.yaml
