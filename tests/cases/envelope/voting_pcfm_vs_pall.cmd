envelope examples/envelope/voting/pcfm_vs_pall.yaml
