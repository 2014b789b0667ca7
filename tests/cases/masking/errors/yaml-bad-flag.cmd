masking tests/cases/masking/errors/yaml-bad-flag.yaml
