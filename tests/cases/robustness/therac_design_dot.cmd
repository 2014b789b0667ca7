robustness examples/robustness/therac/design.yaml --format dot
