masking examples/masking/brp-n1-m10.yaml
