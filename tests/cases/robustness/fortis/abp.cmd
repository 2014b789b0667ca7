robustness examples/robustness/fortis/abp/abp.yaml --print 3
