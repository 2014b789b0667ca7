robustness tests/cases/robustness/normal_violation.yaml --print 3
