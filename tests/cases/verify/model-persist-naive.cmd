check tests/models/verify/persist-naive.yaml
