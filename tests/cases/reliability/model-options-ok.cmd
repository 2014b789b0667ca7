verify tests/cases/reliability/model-options-ok.yaml
