verify examples/robotcar/explorer.yaml --bund 3
