check tests/models/verify/action-failure-mid-rule.yaml
