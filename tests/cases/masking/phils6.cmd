masking examples/masking/phils6.yaml
