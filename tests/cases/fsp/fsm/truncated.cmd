envelope tests/cases/fsp/fsm/truncated.yaml
