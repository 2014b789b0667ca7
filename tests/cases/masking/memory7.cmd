masking examples/masking/memory7.yaml
