robustness examples/robustness/fortis/oyster-4/oyster.yaml --print 3
