robustify tests/cases/robustify/errors/unknown_action.yaml
