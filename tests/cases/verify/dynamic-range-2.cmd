verify tests/models/verify/dynamic-range.yaml --bound 3 --mode naive
