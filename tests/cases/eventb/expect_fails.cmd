check tests/cases/eventb/expect_fails.yaml
