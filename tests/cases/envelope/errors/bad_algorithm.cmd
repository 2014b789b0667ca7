envelope tests/cases/envelope/errors/bad_algorithm.yaml
