verify examples/robotcar/explorer.yaml --bound 4
