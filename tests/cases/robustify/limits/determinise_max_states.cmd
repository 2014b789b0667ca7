robustify tests/cases/robustify/limits/nfa.yaml --max-states 1000
