masking tests/cases/masking/errors/yaml-unknown-type.yaml
