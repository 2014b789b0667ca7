masking examples/masking/brp-n10-m10.yaml
