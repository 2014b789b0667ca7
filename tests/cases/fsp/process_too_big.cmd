robustness tests/cases/fsp/process_too_big.yaml --max-states 1000
