check tests/models/verify/cautious-b4-ideal.yaml
