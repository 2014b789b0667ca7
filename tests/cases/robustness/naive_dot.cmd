robustness examples/robustness/abp/naive.yaml --format dot
