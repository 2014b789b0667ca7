masking tests/cases/reliability/masking-no-transitions.yaml
