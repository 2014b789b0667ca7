robustness examples/robustness/therac/property.yaml
