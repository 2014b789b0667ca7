verify tests/models/verify/errors/primed-in-condition.yaml
