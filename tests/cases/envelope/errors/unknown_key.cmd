envelope tests/cases/envelope/errors/unknown_key.yaml
