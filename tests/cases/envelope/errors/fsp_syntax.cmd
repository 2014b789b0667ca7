envelope tests/cases/envelope/errors/fsp_syntax.yaml
