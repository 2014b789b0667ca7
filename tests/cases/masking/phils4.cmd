masking examples/masking/phils4.yaml
