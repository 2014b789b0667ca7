#!/usr/bin/env bash
# Boundary-only counterexamples (verifier/boundary.c) on the paper's
# explorer at bound 4. Walking forward needs a sensed distance of at least
# 20 with a sensing error of at most 6, so the true distance is at least 14,
# and colliding then needs a walk of at least 14 = unit + 4: an actuation
# error exactly at the edge of its range. So every walkF counterexample is
# boundary-only (probability 0); a walkB collision (backing into what is
# behind) happens on an open set of errors, so none is. Also: boundary-only
# ones come after all others. Run by tests/run.sh (one test).
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$ISMV" verify examples/robotcar/explorer.yaml --bound 4 --format json >"$out"
[ $? = 10 ] || { echo "expected exit 10" >&2; exit 1; }
python3 - "$out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cs = d["counterexamples"]
assert len(cs) == d["total_counterexamples"] == 137, len(cs)
walkF = [c for c in cs if c["failure"]["action"] == "walkF"]
walkB = [c for c in cs if c["failure"]["action"] == "walkB"]
assert len(walkF) + len(walkB) == 137
bad = [" ".join(c["path"]) for c in walkF if c["boundary_only"] is not True]
assert not bad, "walkF not boundary-only: %s" % bad
bad = [" ".join(c["path"]) for c in walkB if c["boundary_only"] is not False]
assert not bad, "walkB boundary-only: %s" % bad
assert d["boundary_only_counterexamples"] == len(walkF)
flags = [c["boundary_only"] for c in cs]
assert flags == sorted(flags), "boundary-only ones must come last"
assert all(c["probability"] == 0 for c in walkF)
assert all(c["probability"] > 0 for c in walkB)
print("walkF %d boundary-only, walkB %d not" % (len(walkF), len(walkB)))
PY
