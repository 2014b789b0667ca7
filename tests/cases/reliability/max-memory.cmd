verify examples/robotcar/explorer.yaml --bound 8 --jobs 1 --max-memory 40
