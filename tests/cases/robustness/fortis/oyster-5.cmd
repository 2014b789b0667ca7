robustness examples/robustness/fortis/oyster-5/oyster.yaml --print 3
