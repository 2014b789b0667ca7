verify tests/cases/probability/analytic.yaml --format json --valuation solver
