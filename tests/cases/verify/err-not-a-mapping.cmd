verify tests/models/verify/errors/not-a-mapping.yaml
