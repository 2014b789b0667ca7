robustness tests/cases/fsp/deterministic_too_big.yaml --max-states 1000
