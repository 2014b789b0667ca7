masking examples/masking/brp-n5-m40.yaml
