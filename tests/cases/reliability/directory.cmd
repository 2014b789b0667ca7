verify tests/cases/reliability
