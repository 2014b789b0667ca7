masking tests/cases/masking/errors/syntax.yaml
