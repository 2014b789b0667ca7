robustness examples/robustness/fortis/pump2/pump.yaml --print 3
