robustness tests/cases/eofm/therac_reference.json
