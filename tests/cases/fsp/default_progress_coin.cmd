robustness tests/cases/fsp/default_progress_coin.yaml --default-progress
