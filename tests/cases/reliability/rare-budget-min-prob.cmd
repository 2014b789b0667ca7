verify tests/cases/reliability/rare-budget.yaml --bound 40 --budget 0.3 --min-prob 0.001 --jobs 2
