masking examples/masking/brp-n10-m40.yaml
