masking examples/masking/raft2.yaml
