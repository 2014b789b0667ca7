check tests/models/verify/cruise-b5-ideal.yaml
