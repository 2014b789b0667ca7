masking tests/cases/masking/errors/missing-kind.yaml
