envelope tests/cases/fsp/fsm/bad_fields.yaml
