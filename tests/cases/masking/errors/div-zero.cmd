masking tests/cases/masking/errors/div-zero.yaml
