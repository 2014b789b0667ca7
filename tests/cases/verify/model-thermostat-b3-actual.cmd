check tests/models/verify/thermostat-b3-actual.yaml
