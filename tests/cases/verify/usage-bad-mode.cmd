verify examples/robotcar/explorer.yaml --mode real
