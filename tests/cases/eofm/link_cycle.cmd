robustness tests/cases/eofm/link_cycle.yaml
