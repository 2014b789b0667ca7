verify tests/models/verify/errors/unknown-key.yaml
