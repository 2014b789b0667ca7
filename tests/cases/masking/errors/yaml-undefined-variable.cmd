masking tests/cases/masking/errors/yaml-undefined-variable.yaml
