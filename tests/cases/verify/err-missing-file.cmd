verify tests/models/verify/errors/no-such-file.yaml
