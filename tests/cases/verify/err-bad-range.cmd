verify tests/models/verify/errors/bad-range.yaml
