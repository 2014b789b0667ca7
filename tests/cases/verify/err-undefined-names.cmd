verify tests/models/verify/errors/undefined-names.yaml
