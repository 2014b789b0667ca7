verify tests/cases/probability/corridor.yaml --probability joint --top 3
