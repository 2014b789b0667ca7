eventb tests/models/eventb/rodin_fails.yaml --format json
