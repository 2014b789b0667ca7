robustness tests/cases/reliability/wrong-kind-eofm.yaml
