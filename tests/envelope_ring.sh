#!/usr/bin/env bash
# envelope at scale: the ring of n environment states (bench/envelope.sh)
# has |Δ| = 2^(n-1) maximal robust deviations. n = 9 (256) must be answered
# completely well within 20 s (about 0.3 s of CPU on an idle machine; 9 s
# before the shortest-clause branching of the seed search).
set -u
. "$(dirname "$0")/lib/ring.sh"
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=9
ring_write "$tmp" "$n" 256
timeout 60 "$ISMV" envelope "$tmp/ring.yaml" --timeout 20 -f json >"$tmp/out" 2>&1
rc=$?
if [ $rc != 0 ]; then
  echo "ring n=9: exit $rc (expected 0: |Δ| = 256 within 20 s)"
  grep -E '"delta_size"|"partial"|error' "$tmp/out" | head -5
  exit 1
fi
