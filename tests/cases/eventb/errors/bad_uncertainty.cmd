eventb tests/cases/eventb/errors/bad_uncertainty.yaml
