envelope examples/envelope/therac25/therac25_vs_therac20.yaml --format json
