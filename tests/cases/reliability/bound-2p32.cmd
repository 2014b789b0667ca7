verify tests/cases/reliability/model-options-ok.yaml --bound 4294967297
