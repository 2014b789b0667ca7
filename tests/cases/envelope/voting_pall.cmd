envelope examples/envelope/voting/voting_pall.yaml
