eventb tests/cases/eventb/errors/syntax.yaml
