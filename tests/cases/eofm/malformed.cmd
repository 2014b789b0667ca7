robustness tests/cases/eofm/malformed.yaml
