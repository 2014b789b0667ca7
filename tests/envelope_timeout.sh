#!/usr/bin/env bash
# ismv envelope --timeout: on a ring of 16 environment states (|Δ| = 2^15,
# far more than the budget allows: n = 11 now finishes in 0.15 s) the default search stops at the budget,
# prints the maximal deviations found so far marked partial, and exits 5;
# JSON says "partial": true. Run by tests/run.sh (one test) with ISMV set.
set -u
. "$(dirname "$0")/lib/ring.sh"
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=16
ring_write "$tmp" "$n" 32768
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
