envelope tests/cases/envelope/errors/expect_verdict_no_compare.yaml
