verify tests/models/verify/errors/type-error.yaml
