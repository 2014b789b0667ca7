robustness examples/robustness/abp/compare.yaml --no-minimize -f json
