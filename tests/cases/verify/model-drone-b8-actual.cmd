check tests/models/verify/drone-b8-actual.yaml
