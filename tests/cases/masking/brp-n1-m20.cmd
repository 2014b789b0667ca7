masking examples/masking/brp-n1-m20.yaml
