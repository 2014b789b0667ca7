masking tests/cases/masking/errors/missing-file.yaml
