robustness tests/cases/eofm/bad_world.yaml
