verify tests/cases/reliability/huge-literal.yaml
