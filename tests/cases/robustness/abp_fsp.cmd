robustness examples/robustness/abp/abp.yaml -f fsp
