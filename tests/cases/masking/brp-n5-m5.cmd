masking examples/masking/brp-n5-m5.yaml
