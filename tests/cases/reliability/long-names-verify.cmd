check tests/cases/reliability/long-names-verify.yaml
