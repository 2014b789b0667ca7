check tests/models/verify/cruise-b4-actual.yaml
