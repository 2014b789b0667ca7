masking examples/masking/yaml/nmr3.yaml
