masking examples/masking/nmr11.yaml
