robustify tests/cases/reliability/expect-bad-robustify.yaml
