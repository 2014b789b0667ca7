verify tests/models/verify/errors/several-errors.yaml
