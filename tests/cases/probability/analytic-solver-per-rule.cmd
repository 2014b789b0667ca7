verify tests/cases/probability/analytic.yaml --format json --valuation solver --probability per-rule
