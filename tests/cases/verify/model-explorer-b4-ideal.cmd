check tests/models/verify/explorer-b4-ideal.yaml
