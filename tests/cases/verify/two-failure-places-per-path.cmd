verify tests/models/verify/two-failure-places.yaml --bound 2 --probability none --strategy per-path --solver-only
