check tests/models/verify/explorer-r0.yaml
