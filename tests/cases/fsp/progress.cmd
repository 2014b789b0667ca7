robustness tests/cases/fsp/progress.yaml
