robustness examples/robustness/abp/naive.yaml --unsafe --format json
