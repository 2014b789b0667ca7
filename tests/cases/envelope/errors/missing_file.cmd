envelope tests/cases/envelope/errors/missing_file.yaml
