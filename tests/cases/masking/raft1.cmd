masking examples/masking/raft1.yaml
