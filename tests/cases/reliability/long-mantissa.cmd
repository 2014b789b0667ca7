check tests/cases/reliability/long-mantissa.yaml
