check tests/models/verify/explorer-b1-actual.yaml
