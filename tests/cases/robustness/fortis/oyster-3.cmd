robustness examples/robustness/fortis/oyster-3/oyster.yaml --print 3
