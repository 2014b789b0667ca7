masking tests/cases/reliability/fuzz-masking-duplicate-side.yaml --max-states 2000 --max-nodes 20000
