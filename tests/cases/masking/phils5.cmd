masking examples/masking/phils5.yaml
