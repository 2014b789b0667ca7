robustness tests/cases/fsp/default_progress_ext.yaml --default-progress
