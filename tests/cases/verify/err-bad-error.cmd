verify tests/models/verify/errors/bad-error.yaml
