verify tests/models/verify/errors/duplicate-key.yaml
