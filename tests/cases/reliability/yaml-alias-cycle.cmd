check tests/cases/reliability/yaml-alias-cycle.yaml
