envelope tests/cases/envelope/errors/normal_unsafe_expected.yaml
