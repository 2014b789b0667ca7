masking examples/masking/brp-n10-m20.yaml
