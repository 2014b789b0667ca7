eventb tests/cases/eventb/errors/duplicate.yaml
