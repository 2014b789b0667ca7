#!/usr/bin/env bash
# What ranking costs next to exploration: `ismv verify` on the explorer with
# and without ranking (boundary decision + joint estimator), same bound.
# Usage (from the repository root):  make && bash bench/ranking.sh    # BOUND=8 by default
set -u
ISMV=${ISMV:-build/release/ismv}
BOUND=${BOUND:-8}
MODEL=${MODEL:-examples/robotcar/explorer.yaml}
for prob in none joint; do
  /usr/bin/time -f "$prob: %e s wall, %U s user, %M KB" "$ISMV" verify "$MODEL" --bound "$BOUND" --probability "$prob" \
    --top 1 --stats >/dev/null
done
