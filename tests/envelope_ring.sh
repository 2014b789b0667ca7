#!/usr/bin/env bash
# envelope at scale: the ring of n environment states (bench/envelope.sh)
# has |Δ| = 2^(n-1) maximal robust deviations. n = 9 (256) must be answered
# completely well within 20 s (about 0.3 s of CPU on an idle machine; 9 s
# before the shortest-clause branching of the seed search).
set -u
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=9
{
  printf 'E0 = (a -> E1)'
  for ((i = 1; i < n; i++)); do printf ',\nE%d = (a -> E%d)' "$i" $(((i + 1) % n)); done
  printf ' + {b}.\n'
} >"$tmp/env.lts"
echo 'C = (a -> C | b -> C).' >"$tmp/ctrl.lts"
{
  printf 'property P = Q0,\nQ0 = (a -> Q1 | b -> Q0)'
  for ((i = 1; i < n - 1; i++)); do printf ',\nQ%d = (a -> Q%d | b -> Q0)' "$i" $((i + 1)); done
  printf ',\nQ%d = (a -> Q0).\n' $((n - 1))
} >"$tmp/p.lts"
printf 'kind: envelope\nenvironment: env.lts\ncontroller: ctrl.lts\nproperty: p.lts\nexpect: {delta_size: 256}\n' >"$tmp/ring.yaml"
timeout 60 "$ISMV" envelope "$tmp/ring.yaml" --timeout 20 -f json >"$tmp/out" 2>&1
rc=$?
if [ $rc != 0 ]; then
  echo "ring n=9: exit $rc (expected 0: |Δ| = 256 within 20 s)"
  grep -E '"delta_size"|"partial"|error' "$tmp/out" | head -5
  exit 1
fi
