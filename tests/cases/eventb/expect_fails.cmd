check --verbose tests/cases/eventb/expect_fails.yaml
