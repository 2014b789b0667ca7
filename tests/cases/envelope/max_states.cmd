envelope examples/envelope/running_example/envelope.yaml --max-states 5
