verify tests/models/verify/two-failure-places.yaml --bound 2 --probability none
