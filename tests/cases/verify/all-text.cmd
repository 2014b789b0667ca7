verify examples/robotcar/explorer.yaml --bound 2 --all
