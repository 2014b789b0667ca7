verify tests/models/verify/errors/assign-sensing.yaml
