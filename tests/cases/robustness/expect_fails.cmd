robustness examples/robustness/abp/naive.yaml --no-minimize
