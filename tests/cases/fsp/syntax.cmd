robustness tests/cases/fsp/syntax.yaml
