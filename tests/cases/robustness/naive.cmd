robustness examples/robustness/abp/naive.yaml
