masking examples/masking/brp-n1-m1.yaml
