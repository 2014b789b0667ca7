robustify tests/cases/robustify/errors/no_events.yaml
