envelope tests/cases/envelope/errors/compare_both.yaml
