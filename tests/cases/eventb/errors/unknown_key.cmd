eventb tests/cases/eventb/errors/unknown_key.yaml
