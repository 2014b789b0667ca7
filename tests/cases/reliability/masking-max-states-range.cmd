masking tests/cases/reliability/masking-max-states-range.yaml
