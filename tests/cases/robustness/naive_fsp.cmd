robustness examples/robustness/abp/naive.yaml -f fsp
