check tests/models/verify/range.yaml
