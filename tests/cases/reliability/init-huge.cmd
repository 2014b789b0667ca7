verify tests/cases/reliability/init-huge.yaml
