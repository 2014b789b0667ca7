envelope examples/envelope/voting/voting_pcfm.yaml
