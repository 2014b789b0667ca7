envelope tests/cases/reliability/expect-bad-envelope.yaml
