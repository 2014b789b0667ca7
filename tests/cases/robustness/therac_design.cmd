robustness examples/robustness/therac/design.yaml
