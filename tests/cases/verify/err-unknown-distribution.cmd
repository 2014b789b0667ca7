verify tests/models/verify/errors/unknown-distribution.yaml
