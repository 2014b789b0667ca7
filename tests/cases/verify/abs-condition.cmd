verify tests/models/probability-conds.yaml --bound 2 --probability none
