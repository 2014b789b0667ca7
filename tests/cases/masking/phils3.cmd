masking examples/masking/phils3.yaml
