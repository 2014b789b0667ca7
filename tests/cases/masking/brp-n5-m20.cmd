masking examples/masking/brp-n5-m20.yaml
