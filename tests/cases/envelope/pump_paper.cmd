envelope examples/envelope/pump/pump.yaml -a paper
