eventb tests/cases/eventb/errors/no_zero.yaml
