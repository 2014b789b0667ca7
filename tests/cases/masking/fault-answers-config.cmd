check tests/cases/masking/fault-answers-config.yaml
