check tests/models/verify/actuation-fresh.yaml
