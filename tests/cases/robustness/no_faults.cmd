robustness tests/cases/robustness/no_faults.yaml --print 3
