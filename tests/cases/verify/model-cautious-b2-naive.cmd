check tests/models/verify/cautious-b2-naive.yaml
