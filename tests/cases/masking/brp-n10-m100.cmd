masking examples/masking/brp-n10-m100.yaml
