check tests/models/verify/wall-follower-b4-ideal.yaml
