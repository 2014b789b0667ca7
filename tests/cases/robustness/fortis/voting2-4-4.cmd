robustness examples/robustness/fortis/voting2-4-4/voting.yaml --print 3
