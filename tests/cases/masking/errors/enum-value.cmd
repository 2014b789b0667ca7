masking tests/cases/masking/errors/enum-value.yaml
