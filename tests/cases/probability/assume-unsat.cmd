verify tests/cases/probability/assume-unsat.yaml
