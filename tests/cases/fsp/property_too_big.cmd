robustness tests/cases/fsp/property_too_big.yaml --max-states 1000
