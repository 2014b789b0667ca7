verify tests/cases/probability/analytic.yaml --format json --probability per-rule
