check tests/models/verify/first-failure-naive.yaml
