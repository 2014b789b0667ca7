envelope tests/cases/envelope/errors/empty_envp.yaml
