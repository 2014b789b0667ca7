masking examples/masking/brp-n1-m40.yaml
