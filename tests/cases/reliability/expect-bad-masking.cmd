masking tests/cases/reliability/expect-bad-masking.yaml
