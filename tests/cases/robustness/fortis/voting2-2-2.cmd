robustness examples/robustness/fortis/voting2-2-2/voting.yaml --print 3
