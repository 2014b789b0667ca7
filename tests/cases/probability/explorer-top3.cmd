verify examples/robotcar/explorer.yaml --bound 3 --top 3
