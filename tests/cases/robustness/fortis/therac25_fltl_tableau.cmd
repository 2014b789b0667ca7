robustness tests/cases/robustness/fortis/therac25_fltl_tableau.yaml
