verify tests/cases/reliability/model-options-ok.yaml --min-prob 0x1p-1
