verify tests/cases/probability/rare.yaml --min-prob 0.001
