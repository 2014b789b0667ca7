robustness tests/cases/fsp/default_progress_stop.yaml --default-progress -f json
