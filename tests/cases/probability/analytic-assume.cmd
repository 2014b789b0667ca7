verify tests/cases/probability/analytic-assume.yaml --format json
