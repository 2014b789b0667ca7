robustness tests/cases/fsp/progress_expect.yaml -f json
