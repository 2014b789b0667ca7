verfy examples/robotcar/explorer.yaml
