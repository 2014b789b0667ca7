robustness examples/robustness/fortis/voting/voting.yaml --print 3
