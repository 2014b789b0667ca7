robustness tests/cases/robustness/faults_no_deviation.yaml --print 3
