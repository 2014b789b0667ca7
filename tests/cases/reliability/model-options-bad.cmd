verify tests/cases/reliability/model-options-bad.yaml
