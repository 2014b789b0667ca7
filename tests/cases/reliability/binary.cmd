check tests/cases/reliability/binary.yaml
