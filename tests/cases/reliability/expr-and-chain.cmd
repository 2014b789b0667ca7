verify tests/cases/reliability/expr-and-chain.yaml
