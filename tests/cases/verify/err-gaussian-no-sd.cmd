verify tests/models/verify/errors/gaussian-no-sd.yaml
