robustness examples/robustness/fortis/oyster-1/oyster.yaml --print 3
