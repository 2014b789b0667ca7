masking tests/cases/masking/errors/yaml-missing-model.yaml
