envelope examples/envelope/therac25/therac25_fixed.yaml
