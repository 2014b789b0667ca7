check tests/models/verify/cautious-b4-actual.yaml
