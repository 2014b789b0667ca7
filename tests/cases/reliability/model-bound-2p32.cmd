verify tests/cases/reliability/model-bound-2p32.yaml
