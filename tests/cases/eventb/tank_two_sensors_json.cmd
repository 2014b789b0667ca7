eventb tests/models/eventb/tank_real.yaml --max-error D --format json
