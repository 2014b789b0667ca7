envelope examples/envelope/running_example/envelope.yaml
