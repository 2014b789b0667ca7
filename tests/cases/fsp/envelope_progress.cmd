envelope tests/cases/fsp/envelope_progress.yaml
