robustness tests/cases/robustness/json_bad.json
