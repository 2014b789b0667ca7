masking tests/cases/masking/errors/bad-weak.yaml
