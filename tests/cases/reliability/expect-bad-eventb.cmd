eventb tests/cases/reliability/expect-bad-eventb.yaml
