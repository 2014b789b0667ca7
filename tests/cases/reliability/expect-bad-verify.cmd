verify tests/cases/reliability/expect-bad-verify.yaml
