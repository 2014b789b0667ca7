robustness tests/cases/reliability/wrong-kind-lts.yaml
