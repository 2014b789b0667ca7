verify tests/models/verify/errors/empty.yaml
