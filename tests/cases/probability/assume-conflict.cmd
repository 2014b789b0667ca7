verify tests/cases/probability/assume-conflict.yaml
