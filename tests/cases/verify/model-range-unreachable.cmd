check tests/models/verify/range-unreachable.yaml
