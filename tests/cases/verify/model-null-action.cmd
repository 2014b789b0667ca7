check tests/models/verify/null-action.yaml
