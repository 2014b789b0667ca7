masking examples/masking/brp-n5-m1.yaml
