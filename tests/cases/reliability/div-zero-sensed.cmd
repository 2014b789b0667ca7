verify tests/cases/reliability/div-zero-sensed.yaml
