check tests/models/verify/explorer-b1-naive.yaml
