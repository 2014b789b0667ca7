verify tests/models/verify/errors/rule-unknown-state.yaml
