check tests/models/verify/selection-first.yaml
