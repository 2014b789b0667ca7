verify tests/cases/probability/corridor.yaml --all
