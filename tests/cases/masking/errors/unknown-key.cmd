masking tests/cases/masking/errors/unknown-key.yaml
