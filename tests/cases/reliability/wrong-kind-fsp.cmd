robustness tests/cases/reliability/wrong-kind-fsp.yaml
