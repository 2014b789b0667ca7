verify tests/cases/probability/bimodal.yaml --probability per-rule
