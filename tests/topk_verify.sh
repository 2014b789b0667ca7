#!/usr/bin/env bash
# The top-K search (`verify --search top-k`) must report what full
# enumeration followed by ranking (`--search full`) reports: the same
# verdict, the same failure classes, and for each class the same most
# likely counterexample (path, probability, boundary-only); with --top K the
# same K first counterexamples. On every bundled ISM app, at bounds 2-4
# (TOPK_BOUNDS to choose, e.g. "2 3 4 5 6"; bench/topk.sh times bound 6),
# for the default report and --top 5; at bound 3 also with --min-prob,
# mode ideal, and the per-rule estimator; at bound 4 split in subtrees
# searched on two threads (each a part of the top-K search of its own),
# and byte for byte the same with --jobs 1 and 3. Also every other valid ISM
# model under tests/ without an expect: block, at bound 3.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
bounds=${TOPK_BOUNDS:-2 3 4}
[ "${MODE:-}" = asan ] && bounds=${TOPK_BOUNDS:-2 3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
runs=0

# compare FULL.json TOPK.json K: exit 1 (and say what differs) unless they agree
compare() {
  python3 - "$@" <<'EOF'
import json, sys
def summary(path, top):
    d = json.load(open(path))
    cx = d["counterexamples"]
    classes = {}
    for c in d.get("classes", []):
        m = cx[c["top"] - 1] if c["top"] - 1 < len(cx) else None
        classes[(c["rule"], c["action"], c["condition"])] = (
            c["probability"], tuple(m["path"]) if m else None, m["probability"] if m else None,
            m["boundary_only"] if m else None)
    firsts = [(tuple(c["path"]), c["probability"], c["boundary_only"]) for c in cx[:top]]
    return d["verdict"], d["exit_code"], classes, firsts, d.get("search")
full, topk = summary(sys.argv[1], int(sys.argv[3])), summary(sys.argv[2], int(sys.argv[3]))
if full[4] is not None or topk[4] != "top-k":
    sys.exit("the runs did not use the searches asked for")
if full[:4] != topk[:4]:
    print("verdict/exit: full %s/%s, top-k %s/%s" % (full[0], full[1], topk[0], topk[1]))
    for k in sorted(set(full[2]) | set(topk[2]), key=str):
        if full[2].get(k) != topk[2].get(k):
            print("class %s: full %s, top-k %s" % (k, full[2].get(k), topk[2].get(k)))
    for a, b in zip(full[3], topk[3]):
        if a != b: print("listed: full %s, top-k %s" % (a, b))
    sys.exit(1)
EOF
}

check() { # MODEL BOUND K ARGS...
  local model=$1 bound=$2 k=$3
  shift 3
  "$ISMV" verify "$model" --bound "$bound" --search full -f json "$@" >"$tmp/full.json" 2>"$tmp/err"
  "$ISMV" verify "$model" --bound "$bound" --search top-k -f json "$@" >"$tmp/topk.json" 2>>"$tmp/err"
  runs=$((runs + 1))
  if ! compare "$tmp/full.json" "$tmp/topk.json" "$k" >"$tmp/why" 2>&1; then
    echo "$model --bound $bound $*: top-k differs from full enumeration" >&2
    sed 's/^/  /' "$tmp/why" "$tmp/err" >&2
    status=1
  fi
}

for model in $(grep -l '^kind: ism' examples/*/*.yaml | LC_ALL=C sort); do
  for bound in $bounds; do
    check "$model" "$bound" 0
    check "$model" "$bound" 5 --top 5
  done
  check "$model" 3 3 --top 3 --min-prob 0.2
  check "$model" 3 0 --min-prob 0.3
  check "$model" 3 4 --mode ideal --top 4
  check "$model" 3 0 --probability per-rule
  check "$model" 4 3 --top 3 --split-depth 2 --jobs 2 # a part of the top-K search per subtree
done
# every other valid ISM model of the tests (no expect: block, which needs full), bound 3: models of
# other shapes (integers, divisions, assume:, dynamic values) for the reachable hulls and the bounds
for model in $(grep -rl '^kind: ism' tests --include='*.yaml' | LC_ALL=C sort); do
  grep -q '^expect:' "$model" && continue
  "$ISMV" verify "$model" --bound 3 --search full -f json >/dev/null 2>&1
  [ $? = 2 ] && continue # an invalid model (an error test)
  check "$model" 3 0
done
# the output does not depend on --jobs (each subtree's part sees only its own)
for model in examples/robotcar/explorer.yaml examples/thermostat/thermostat.yaml; do
  ref=$("$ISMV" verify "$model" --bound 4 --search top-k --split-depth 2 --jobs 1 -f json 2>&1 | md5sum)
  got=$("$ISMV" verify "$model" --bound 4 --search top-k --split-depth 2 --jobs 3 -f json 2>&1 | md5sum)
  if [ "$got" != "$ref" ]; then
    echo "$model: top-k with --jobs 3 differs from --jobs 1" >&2
    status=1
  fi
done
[ "$status" = 0 ] && echo "top-k = full enumeration on $runs runs"
exit $status
