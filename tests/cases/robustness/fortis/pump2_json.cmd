robustness examples/robustness/fortis/pump2/config-robustness.json --print 3
