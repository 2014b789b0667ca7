robustness tests/cases/robustness/fault_last.yaml
