masking tests/cases/reliability/wrong-kind-maskd.yaml
