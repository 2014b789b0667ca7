check tests/models/verify/wall-follower-b2-naive.yaml
