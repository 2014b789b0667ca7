robustness tests/cases/robustness/process_missing.yaml --print 3
