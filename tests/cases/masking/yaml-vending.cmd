masking examples/masking/yaml/vending.yaml
