robustness tests/cases/eofm/unfolding.yaml
