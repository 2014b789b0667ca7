check tests/models/verify/options.yaml
