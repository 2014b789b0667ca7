robustness tests/cases/fsp/progress.yaml --default-progress
