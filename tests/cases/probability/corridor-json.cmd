verify tests/cases/probability/corridor.yaml --format json --top 3
