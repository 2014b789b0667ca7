masking examples/masking/yaml/memory3.yaml
