envelope examples/envelope/running_example/envelope.yaml --format dot
