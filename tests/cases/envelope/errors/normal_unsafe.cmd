envelope tests/cases/envelope/errors/normal_unsafe.yaml
