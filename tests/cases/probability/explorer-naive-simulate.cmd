simulate examples/robotcar/explorer.yaml --mode naive --bound 1 --runs 2000
