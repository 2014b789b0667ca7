masking examples/masking/yaml/memory3-mixed.yaml
