check tests/models/verify/explorer-b4-naive.yaml
