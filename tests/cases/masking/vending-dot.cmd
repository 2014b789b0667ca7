masking examples/masking/vending.yaml --format dot
