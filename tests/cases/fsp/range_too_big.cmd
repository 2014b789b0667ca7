robustness tests/cases/fsp/range_too_big.yaml --max-states 1000
