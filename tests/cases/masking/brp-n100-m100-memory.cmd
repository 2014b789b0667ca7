masking examples/masking/brp-n100-m100.yaml --max-memory 128
