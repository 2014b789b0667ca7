robustness tests/cases/fsp/compose_too_big.yaml --max-states 1000
