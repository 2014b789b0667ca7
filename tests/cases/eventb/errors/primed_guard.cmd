eventb tests/cases/eventb/errors/primed_guard.yaml
