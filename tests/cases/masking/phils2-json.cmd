masking examples/masking/phils2.yaml --trace --format json
