envelope tests/cases/fsp/fsm/two_unmarked.yaml
