robustness examples/robustness/fortis-tests/therac_compare.yaml --expand --format json
