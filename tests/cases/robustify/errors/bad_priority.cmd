robustify tests/cases/robustify/errors/bad_priority.yaml
