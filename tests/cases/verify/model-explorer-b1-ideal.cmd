check tests/models/verify/explorer-b1-ideal.yaml
