envelope tests/cases/fsp/fsm/bad_count.yaml
