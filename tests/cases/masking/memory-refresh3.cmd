masking examples/masking/memory-refresh3.yaml
