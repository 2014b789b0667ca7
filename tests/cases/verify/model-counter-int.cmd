check tests/models/verify/counter-int.yaml
