verify tests/cases/probability/rare.yaml --format json
