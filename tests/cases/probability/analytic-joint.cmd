verify tests/cases/probability/analytic.yaml --format json
