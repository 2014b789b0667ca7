masking tests/cases/reliability/fuzz-masking-error-cap.yaml --max-states 2000 --max-nodes 20000
