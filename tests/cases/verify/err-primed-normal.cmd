verify tests/models/verify/errors/primed-normal.yaml
