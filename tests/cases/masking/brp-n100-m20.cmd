masking examples/masking/brp-n100-m20.yaml
