masking examples/masking/brp-n1-m5.yaml
