verify tests/cases/reliability/not-a-model.txt
