robustness examples/robustness/fortis/voting2-3-3/voting.yaml --print 3
