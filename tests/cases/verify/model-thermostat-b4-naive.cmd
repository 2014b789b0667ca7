check tests/models/verify/thermostat-b4-naive.yaml
