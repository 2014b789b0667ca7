#!/usr/bin/env bash
# `ismv verify --all` streams counterexamples as the search finds them; it
# must write the same ones as the in-memory report. On every bundled ISM
# app at bound 4, its search split at depth 2 on 2 threads (so subtrees
# finish out of order and the stream must put them back in place):
# without ranking the counterexamples array is identical (values, order);
# with ranking (joint, the default, and per-rule) each counterexample gets
# the same boundary decision and exactly the same probability and error bar
# (compared as sorted lists by path, since --all keeps the search order;
# the maximisation does not depend on the solver's witness where a
# low-discrepancy start reaches at least as high, docs/probability.md);
# verdicts and totals agree. The report gets --top 1e9
# because a model's verify: top does not apply to --all.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bound=${STREAM_BOUND:-4}
[ "${MODE:-}" = asan ] && bound=${STREAM_BOUND:-3}
status=0
for model in $(grep -l '^kind: ism' examples/*/*.yaml | LC_ALL=C sort); do
  for prob in none joint per-rule; do
    common=(--bound "$bound" --split-depth 2 --jobs 2 --format json --probability "$prob")
    "$ISMV" verify "$model" "${common[@]}" --all >"$tmp/stream.json" 2>"$tmp/stream.err"
    rc1=$?
    "$ISMV" verify "$model" "${common[@]}" --top 1000000000 >"$tmp/whole.json" 2>"$tmp/whole.err"
    rc2=$?
    if [ "$rc1" != "$rc2" ]; then
      echo "$model --probability $prob: exit $rc1 with --all, $rc2 without" >&2
      status=1
      continue
    fi
    if ! python3 - "$tmp/stream.json" "$tmp/whole.json" "$prob" <<'PY'; then
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
ranked = sys.argv[3] != "none"
same = a["verdict"] == b["verdict"] and a["total_counterexamples"] == b["total_counterexamples"]
same = same and a["stats"] == b["stats"]
if ranked:
    key = lambda d: sorted((c["path"], c.get("boundary_only"), c["probability"], c["probability_error"])
                           for c in d["counterexamples"])
    ka, kb = key(a), key(b)
    for x, y in zip(ka, kb):
        if x != y:
            print("  streamed", x, "\n  report  ", y, file=sys.stderr)
    same = same and ka == kb
else:
    same = same and a["counterexamples"] == b["counterexamples"]
sys.exit(0 if same else 1)
PY
      echo "$model --probability $prob: --all differs from the report" >&2
      status=1
    fi
  done
done
exit $status
