verify tests/cases/reliability/expr-deep-parens.yaml
