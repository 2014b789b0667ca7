robustness tests/cases/eofm/tiny.yaml
