masking examples/masking/nmr7.yaml
