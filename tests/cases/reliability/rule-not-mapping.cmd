verify tests/cases/reliability/rule-not-mapping.yaml
