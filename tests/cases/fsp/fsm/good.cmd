envelope tests/cases/fsp/fsm/good.yaml
