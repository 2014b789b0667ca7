envelope examples/envelope/therac25/therac25.yaml --algorithm brute-force
