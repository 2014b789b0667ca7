check tests/cases/reliability/exact-small.yaml
