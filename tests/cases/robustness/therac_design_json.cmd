robustness examples/robustness/therac/design.yaml -f json
