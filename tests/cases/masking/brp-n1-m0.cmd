masking examples/masking/brp-n1-m0.yaml
