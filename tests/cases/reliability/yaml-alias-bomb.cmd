check tests/cases/reliability/yaml-alias-bomb.yaml
