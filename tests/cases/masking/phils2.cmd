masking examples/masking/phils2.yaml
