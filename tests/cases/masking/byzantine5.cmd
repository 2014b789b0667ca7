masking examples/masking/byzantine5.yaml
