robustness examples/robustness/coffee/coffee.yaml --format json
