robustness examples/robustness/abp/abp_fortis.yaml
