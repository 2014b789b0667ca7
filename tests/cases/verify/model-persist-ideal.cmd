check tests/models/verify/persist-ideal.yaml
