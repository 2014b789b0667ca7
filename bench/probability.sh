#!/usr/bin/env bash
# Predicted vs simulated failure probabilities on the robot-car apps and the
# corridor test model: plot-ready CSV and an SVG scatter plot per app and
# estimator, into ${OUT:-build/probability}. Usage (from the repository root):
#   make && bash bench/probability.sh            # BOUND=4 RUNS=10000 by default
set -eu
ISMV=${ISMV:-build/release/ismv}
OUT=${OUT:-build/probability}
BOUND=${BOUND:-4}
RUNS=${RUNS:-10000}
mkdir -p "$OUT"
for model in examples/robotcar/*.yaml tests/cases/probability/corridor.yaml; do
  name=$(basename "$model" .yaml)
  for est in per-rule joint; do
    "$ISMV" simulate "$model" --bound "$BOUND" --runs "$RUNS" --probability "$est" --format csv \
      --svg "$OUT/$name-$est.svg" -o "$OUT/$name-$est.csv"
    "$ISMV" simulate "$model" --bound "$BOUND" --runs "$RUNS" --probability "$est" | tail -2 | sed "s/^/$name $est: /"
  done
done
echo "CSV and SVG files in $OUT"
