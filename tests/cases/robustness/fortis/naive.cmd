robustness examples/robustness/fortis/abp/naive.yaml --print 3
