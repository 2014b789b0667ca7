masking tests/cases/masking/phils3-plain.yaml
