check tests/models/verify/assumed-value.yaml
