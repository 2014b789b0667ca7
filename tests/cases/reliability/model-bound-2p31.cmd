verify tests/cases/reliability/model-bound-2p31.yaml
