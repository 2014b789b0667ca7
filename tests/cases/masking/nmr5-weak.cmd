masking examples/masking/nmr5.yaml --weak true
