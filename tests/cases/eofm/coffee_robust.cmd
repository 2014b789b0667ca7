robustness examples/robustness/coffee/coffee_robust.yaml
