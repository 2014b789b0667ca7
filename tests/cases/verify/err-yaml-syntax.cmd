verify tests/models/verify/errors/yaml-syntax.yaml
