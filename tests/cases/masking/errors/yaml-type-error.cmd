masking tests/cases/masking/errors/yaml-type-error.yaml
