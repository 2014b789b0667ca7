robustify tests/cases/robustify/errors/oasis.json
