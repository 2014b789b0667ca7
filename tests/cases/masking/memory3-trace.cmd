masking examples/masking/memory3.yaml --trace
