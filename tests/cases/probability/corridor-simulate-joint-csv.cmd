simulate tests/cases/probability/corridor.yaml --runs 4000 --probability joint --format csv
