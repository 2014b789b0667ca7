masking tests/cases/masking/errors/nmr3plus.yaml
