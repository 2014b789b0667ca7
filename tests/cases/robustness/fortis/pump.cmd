robustness examples/robustness/fortis/pump/pump.yaml --print 3
