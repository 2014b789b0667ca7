envelope examples/envelope/oyster/oyster.yaml
