robustness examples/robustness/abp/abp.yaml
