masking examples/masking/brp-n10-m5.yaml
