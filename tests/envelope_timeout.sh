#!/usr/bin/env bash
# ismv envelope --timeout: on a ring of 11 environment states (|Δ| = 2^10,
# far more than the budget allows) the default search stops at the budget,
# prints the maximal deviations found so far marked partial, and exits 5;
# JSON says "partial": true. Run by tests/run.sh (one test) with ISMV set.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=11
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
printf 'kind: envelope\nenvironment: env.lts\ncontroller: ctrl.lts\nproperty: p.lts\nexpect: {delta_size: 1024}\n' >"$tmp/ring.yaml"
status=0
timeout 60 "$ISMV" envelope "$tmp/ring.yaml" --timeout 0.5 >"$tmp/out" 2>&1
rc=$?
if [ $rc != 5 ] || ! grep -q '^partial: the time limit (--timeout) ran out' "$tmp/out"; then
  echo "text: exit $rc, expected 5 with a partial note" >&2
  head -5 "$tmp/out" >&2
  status=1
fi
timeout 60 "$ISMV" envelope "$tmp/ring.yaml" --timeout 0.5 -f json >"$tmp/json" 2>&1
rc=$?
if [ $rc != 5 ] || ! grep -q '"partial": true' "$tmp/json"; then
  echo "json: exit $rc, expected 5 with \"partial\": true" >&2
  status=1
fi
exit $status
