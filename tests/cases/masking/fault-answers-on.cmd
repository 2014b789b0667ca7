masking tests/cases/masking/fault-answers.yaml --fault-answers -f json
