robustify tests/cases/robustify/limits/nfa.yaml --timeout 0.3 --format json
