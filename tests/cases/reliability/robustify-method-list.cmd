robustify tests/cases/reliability/robustify-method-list.yaml
