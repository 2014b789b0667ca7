robustness tests/cases/eofm/bad_mode.json
