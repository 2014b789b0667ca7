robustify tests/cases/robustify/errors/missing_file.yaml
