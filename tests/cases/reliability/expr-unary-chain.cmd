verify tests/cases/reliability/expr-unary-chain.yaml
