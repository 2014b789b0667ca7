robustify tests/cases/robustify/errors/bad_method.yaml
