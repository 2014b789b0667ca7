eventb tests/models/eventb/rodin_ok.yaml
