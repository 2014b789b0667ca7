masking tests/cases/masking/errors/yaml-unknown-process.yaml
