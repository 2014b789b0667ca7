verify examples/robotcar/wall-follower.yaml --bound 12 --mode ideal --budget 0.5 --probability none
