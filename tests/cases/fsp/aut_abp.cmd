check examples/robustness/abp/abp_aut.yaml
