check tests/models/verify/counter-int-b3.yaml
