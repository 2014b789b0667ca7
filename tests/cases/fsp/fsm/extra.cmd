envelope tests/cases/fsp/fsm/extra.yaml
