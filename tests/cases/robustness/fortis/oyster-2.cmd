robustness examples/robustness/fortis/oyster-2/oyster.yaml --print 3
