masking examples/masking/memory9.yaml
