check tests/models/verify/selection-any.yaml
