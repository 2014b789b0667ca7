robustness examples/robustness/fortis/therac25/therac25.yaml --print 3
