robustness tests/cases/robustness/faults_unmatched.yaml --print 3
