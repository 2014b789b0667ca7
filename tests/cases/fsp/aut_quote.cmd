robustness tests/cases/fsp/aut_quote.yaml
