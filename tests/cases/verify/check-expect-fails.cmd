check tests/models/verify/errors/expect-fails.yaml
