robustness tests/cases/eofm/spelling.yaml
