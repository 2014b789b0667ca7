masking examples/masking/vending.yaml
