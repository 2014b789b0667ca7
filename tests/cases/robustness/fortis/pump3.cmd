robustness examples/robustness/fortis/pump3/pump.yaml --print 3
