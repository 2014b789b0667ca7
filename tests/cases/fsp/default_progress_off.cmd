robustness tests/cases/fsp/default_progress_twocoin.yaml
