check tests/models/verify/first-failure-ideal.yaml
