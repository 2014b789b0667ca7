envelope tests/cases/reliability/wrong-kind-envelope.yaml
