verify examples/robotcar/explorer.yaml --bound 2 --all --format json --top 3
