#!/usr/bin/env bash
# Predicted vs simulated failure probabilities on the robot-car apps and the
# corridor test model: plot-ready CSV and an SVG scatter plot per app and
# estimator, into ${OUT:-build/probability}. Usage (from the repository root):
#   make && bash bench/probability.sh            # BOUND=4 RUNS=10000 by default
# `ismv simulate` exits 10 when a prediction lies outside its interval (the
# per-rule estimator often does); that is reported, not fatal here.
set -u
ISMV=${ISMV:-build/release/ismv}
OUT=${OUT:-build/probability}
BOUND=${BOUND:-4}
RUNS=${RUNS:-10000}
mkdir -p "$OUT"
for model in examples/robotcar/*.yaml tests/cases/probability/corridor.yaml; do
  name=$(basename "$model" .yaml)
  for est in joint per-rule; do
    "$ISMV" simulate "$model" --bound "$BOUND" --runs "$RUNS" --probability "$est" --format csv \
      --svg "$OUT/$name-$est.svg" -o "$OUT/$name-$est.csv" 2>/dev/null
    "$ISMV" simulate "$model" --bound "$BOUND" --runs "$RUNS" --probability "$est" 2>/dev/null | tail -2 | sed "s/^/$name $est: /"
  done
done
echo "CSV and SVG files in $OUT"
