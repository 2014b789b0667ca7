robustness examples/robustness/abp/abp.yaml --format json
