masking examples/masking/brp-n5-m10.yaml
