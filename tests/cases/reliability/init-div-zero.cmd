verify tests/cases/reliability/init-div-zero.yaml
