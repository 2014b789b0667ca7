eventb tests/models/eventb/split_real.yaml --max-error D --robustify preserving --svg /dev/null
