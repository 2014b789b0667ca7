envelope examples/envelope/pump/pump.yaml
