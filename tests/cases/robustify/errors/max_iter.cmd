robustify tests/cases/robustify/errors/max_iter.json
