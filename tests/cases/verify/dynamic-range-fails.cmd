verify tests/models/verify/dynamic-range-fails.yaml --bound 1 --all
