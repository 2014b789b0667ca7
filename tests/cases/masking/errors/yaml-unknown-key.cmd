masking tests/cases/masking/errors/yaml-unknown-key.yaml
