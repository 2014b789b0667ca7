masking tests/cases/masking/errors/expect-fails.yaml
