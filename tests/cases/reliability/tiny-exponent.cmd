verify tests/cases/reliability/tiny-exponent.yaml
