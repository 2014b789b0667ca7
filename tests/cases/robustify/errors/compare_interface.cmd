robustify tests/cases/robustify/errors/compare_interface.yaml
