robustness tests/cases/reliability/expect-bad-robustness.yaml
