eventb tests/cases/eventb/errors/type_error.yaml
