robustify tests/cases/fsp/robustify_progress.yaml
