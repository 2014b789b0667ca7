masking examples/masking/byzantine3.yaml
