masking examples/masking/brp-n10-m1.yaml
