masking tests/cases/masking/fault-answers.yaml --trace
