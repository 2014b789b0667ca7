eventb tests/cases/eventb/errors/undefined_name.yaml
