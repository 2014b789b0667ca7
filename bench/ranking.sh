#!/usr/bin/env bash
# What ranking costs next to exploration: `ismv verify` on the explorer with
# and without ranking (boundary decision + joint estimator), same bound, on
# one thread. Prints CPU seconds (user + system) of each, and the ratio of
# the ranking's share (joint minus none) to the exploration (none); with
# CALLGRIND=1, instruction counts under valgrind's callgrind instead, which
# do not depend on the machine's load (about 50 times slower).
# The search is full enumeration (every counterexample found is ranked; from
# bound 7 `verify --top` would otherwise use the top-K search, which ranks
# only what may enter the report); SEARCH=top-k measures that instead (the
# exploration stays the full one, `--probability none` has no top-K search).
# With SPLIT=1 a third run, `--probability none --all` (every counterexample
# gets its canonical witness, none is ranked), separates the witnesses'
# share (none --all minus none) from the estimator's (joint minus none
# --all: the estimator, the boundary decisions and the clamp); meaningful
# with the full search only (SEARCH=full), where both runs treat every
# counterexample.
# Usage (from the repository root):
#   make && bash bench/ranking.sh            # BOUND=8 by default; BOUND=6 takes ~15 s of CPU
set -u
ISMV=${ISMV:-build/release/ismv}
BOUND=${BOUND:-8}
MODEL=${MODEL:-examples/robotcar/explorer.yaml}
CALLGRIND=${CALLGRIND:-0}
SEARCH=${SEARCH:-full}
SPLIT=${SPLIT:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=(none joint)
[ "$SPLIT" = 1 ] && runs=(none witnesses joint)
for prob in "${runs[@]}"; do
  search=full
  [ "$prob" = joint ] && search=$SEARCH
  args=(verify "$MODEL" --bound "$BOUND" --probability "$prob" --top 1 --jobs 1 --search "$search")
  [ "$prob" = witnesses ] && args=(verify "$MODEL" --bound "$BOUND" --probability none --all --jobs 1 --search full)
  if [ "$CALLGRIND" = 1 ]; then
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$ISMV" "${args[@]}" >/dev/null 2>"$tmp/$prob"
    sed -n 's/.*I *refs: *//p' "$tmp/$prob" | tr -d , >"$tmp/$prob.cost"
    echo "$prob: $(cat "$tmp/$prob.cost") instructions"
  else
    /usr/bin/time -f "%U %S %e %M" -o "$tmp/$prob.time" "$ISMV" "${args[@]}" >/dev/null 2>&1
    read -r user system wall kb < <(tail -1 "$tmp/$prob.time")
    awk -v u="$user" -v s="$system" 'BEGIN { printf "%.2f\n", u + s }' >"$tmp/$prob.cost"
    echo "$prob: $(cat "$tmp/$prob.cost") s CPU (user + system), $wall s wall, $kb KB"
  fi
done
awk -v none="$(cat "$tmp/none.cost")" -v joint="$(cat "$tmp/joint.cost")" \
  'BEGIN { printf "ranking / exploration: %.1f (bound '"$BOUND"', ranking after the '"$SEARCH"' search)\n", (joint - none) / none }'
if [ "$SPLIT" = 1 ]; then
  awk -v none="$(cat "$tmp/none.cost")" -v wit="$(cat "$tmp/witnesses.cost")" -v joint="$(cat "$tmp/joint.cost")" \
    'BEGIN { printf "of which canonical witnesses / exploration: %.1f, estimator (with boundary decisions, clamp) / exploration: %.1f\n", (wit - none) / none, (joint - wit) / none }'
fi
