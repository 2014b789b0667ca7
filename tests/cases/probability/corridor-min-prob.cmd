verify tests/cases/probability/corridor.yaml --min-prob 0.3 --top 4
