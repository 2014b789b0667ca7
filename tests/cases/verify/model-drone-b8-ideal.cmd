check tests/models/verify/drone-b8-ideal.yaml
