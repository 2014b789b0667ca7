robustify tests/cases/robustify/errors/missing_safety.yaml
