robustness tests/cases/eofm/undefined_name.yaml
