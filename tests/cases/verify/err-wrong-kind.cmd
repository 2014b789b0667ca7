verify tests/models/verify/errors/wrong-kind.yaml
