envelope examples/envelope/therac25/therac20.yaml
