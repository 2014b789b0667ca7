robustness tests/cases/fsp/empty_range_inline.yaml
