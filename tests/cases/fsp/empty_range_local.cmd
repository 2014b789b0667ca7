robustness tests/cases/fsp/empty_range_local.yaml
