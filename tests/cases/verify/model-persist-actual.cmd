check tests/models/verify/persist-actual.yaml
