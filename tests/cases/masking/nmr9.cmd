masking examples/masking/nmr9.yaml
