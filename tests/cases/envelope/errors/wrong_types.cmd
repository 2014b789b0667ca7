envelope tests/cases/envelope/errors/wrong_types.yaml
