robustness tests/cases/robustness/normal_violation_expected.yaml --print 3
