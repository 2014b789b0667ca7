masking tests/cases/masking/errors/missing-key.yaml
