check tests/cases/reliability/expect-no-verdict.yaml
