envelope tests/cases/envelope/errors/expect_fails.yaml
