masking tests/cases/masking/errors/yaml-syntax.yaml
