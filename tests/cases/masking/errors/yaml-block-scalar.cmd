masking tests/cases/masking/errors/yaml-block-scalar.yaml
