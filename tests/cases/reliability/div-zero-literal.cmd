verify tests/cases/reliability/div-zero-literal.yaml
