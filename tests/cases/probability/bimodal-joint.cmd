verify tests/cases/probability/bimodal.yaml
