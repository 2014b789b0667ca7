robustness examples/robustness/abp/naive_fortis.yaml --expand
