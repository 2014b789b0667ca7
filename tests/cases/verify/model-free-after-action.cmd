check tests/models/verify/free-after-action.yaml
