check tests/models/verify/persist-dynamic.yaml
