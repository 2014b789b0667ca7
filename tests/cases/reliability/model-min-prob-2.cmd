verify tests/cases/reliability/model-min-prob-2.yaml
