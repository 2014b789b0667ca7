eventb tests/models/eventb/split_strict.yaml --max-error D --robustify preserving
