verify tests/cases/probability/analytic.yaml --seed 4000000000 --format json
