verify tests/models/verify/dynamic-range.yaml --bound 3 --strategy per-path
