simulate tests/cases/probability/corridor.yaml --runs 4000 --seed 3 --format json
