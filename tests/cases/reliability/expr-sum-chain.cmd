verify tests/cases/reliability/expr-sum-chain.yaml
