robustness tests/cases/fsp/overflow_div.yaml
