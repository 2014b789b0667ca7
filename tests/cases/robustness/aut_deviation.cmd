robustness tests/cases/robustness/aut_deviation.yaml
