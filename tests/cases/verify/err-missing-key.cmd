verify tests/models/verify/errors/missing-key.yaml
