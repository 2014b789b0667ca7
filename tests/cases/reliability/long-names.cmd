check tests/cases/reliability/long-names.yaml
