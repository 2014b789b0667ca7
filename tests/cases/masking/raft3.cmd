masking examples/masking/raft3.yaml
