robustify tests/cases/robustify/errors/expect_fails.yaml
