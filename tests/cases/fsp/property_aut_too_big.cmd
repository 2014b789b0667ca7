robustness tests/cases/fsp/property_aut_too_big.yaml --max-states 1000
