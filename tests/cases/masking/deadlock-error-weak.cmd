masking examples/masking/memory5.yaml --weak true --deadlock-error
