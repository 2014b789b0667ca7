simulate tests/cases/reliability/div-zero-sensed.yaml
