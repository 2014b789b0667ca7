masking tests/cases/masking/errors/unbounded.yaml
