masking examples/masking/nmr3.yaml
