check tests/models/verify/explorer-b4-actual.yaml
