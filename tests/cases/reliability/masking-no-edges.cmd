masking tests/cases/reliability/masking-no-edges.yaml
