check tests/models/verify/actuation-fresh-ideal.yaml
