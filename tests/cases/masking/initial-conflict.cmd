masking tests/cases/masking/initial-conflict.yaml
