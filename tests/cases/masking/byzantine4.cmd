masking examples/masking/byzantine4.yaml
