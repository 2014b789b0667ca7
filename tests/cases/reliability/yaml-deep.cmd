verify tests/cases/reliability/yaml-deep.yaml
