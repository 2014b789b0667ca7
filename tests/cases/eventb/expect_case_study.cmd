check --verbose tests/cases/eventb/expect_case_study.yaml
