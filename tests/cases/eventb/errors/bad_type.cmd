eventb tests/cases/eventb/errors/bad_type.yaml
