robustness tests/cases/eofm/local_bad.yaml
