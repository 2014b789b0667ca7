robustness examples/robustness/fortis-tests/disables.yaml --disables
