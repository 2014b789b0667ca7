#!/usr/bin/env bash
# `ismv verify --shard I/N` + `ismv merge` (docs/scale-out.md): the merged
# report is the single run's, byte for byte, with its exit code, in text and
# JSON, for N = 1, 2 and 5, on two bundled apps (bound 4, split at depth 2:
# 12 and 20 subtrees, so N = 5 leaves no shard empty); the shards' subtrees
# are exactly those of the run, each once. Then the errors: a missing shard
# (exit 6, named), a shard given twice, shards of different runs or splits (exit 1),
# a failed shard (exit 6), and --shard with a malformed I/N (exit 1).
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*" >&2; status=1; }
bound=4
[ "${MODE:-}" = asan ] && bound=3

run_app() { # MODEL, extra options...
  local model=$1 name
  shift
  name=$(basename "$model" .yaml)
  local args=(--bound "$bound" --split-depth 2 "$@")
  "$ISMV" verify "$model" "${args[@]}" -q >"$tmp/$name.single.txt" 2>/dev/null
  local want_rc=$?
  "$ISMV" verify "$model" "${args[@]}" -q --format json >"$tmp/$name.single.json" 2>/dev/null
  for n in 1 2 5; do
    local files=() total=0
    for i in $(seq 1 "$n"); do
      "$ISMV" verify "$model" "${args[@]}" --jobs 2 --shard "$i/$n" -o "$tmp/$name.$i-$n.json" 2>"$tmp/err"
      local rc=$?
      [ $rc = 0 ] || fail "$name shard $i/$n: exit $rc, expected 0: $(cat "$tmp/err")"
      files+=("$tmp/$name.$i-$n.json")
    done
    # every subtree exactly once over the shards, and the owner's rule (index mod N)
    python3 - "$n" "${files[@]}" <<'PY' || fail "$name N=$n: the shards' subtrees are not a partition"
import json, sys
n = int(sys.argv[1]); seen = []
docs = [json.load(open(f)) for f in sys.argv[2:]]
total = docs[0]["subtrees"]
for d in docs:
    assert d["subtrees"] == total and d["of"] == n
    for p in d["parts"]:
        assert p["index"] % n == d["shard"] - 1, (p["index"], d["shard"])
        seen.append(p["index"])
assert sorted(seen) == list(range(total)), (sorted(seen), total)
assert total >= 5, total
PY
    "$ISMV" merge "${files[@]}" >"$tmp/m.txt" 2>"$tmp/err"
    local rc=$?
    [ $rc = "$want_rc" ] || fail "$name N=$n: merge exit $rc, single run $want_rc: $(cat "$tmp/err")"
    cmp -s "$tmp/m.txt" "$tmp/$name.single.txt" || { fail "$name N=$n: merged text differs"; diff "$tmp/$name.single.txt" "$tmp/m.txt" | head -5; }
    # the order of the files on the command line does not matter
    local rev=()
    for ((k = ${#files[@]} - 1; k >= 0; k--)); do rev+=("${files[$k]}"); done
    "$ISMV" merge "${rev[@]}" --format json >"$tmp/m.json" 2>/dev/null
    cmp -s "$tmp/m.json" "$tmp/$name.single.json" || { fail "$name N=$n: merged JSON differs"; diff "$tmp/$name.single.json" "$tmp/m.json" | head -5; }
  done
}

run_app examples/thermostat/thermostat.yaml
run_app examples/robotcar/explorer.yaml --top 3

t=$tmp/thermostat
expect_error() { # RC, PATTERN, ismv args...
  local want=$1 pattern=$2
  shift 2
  "$ISMV" "$@" >/dev/null 2>"$tmp/err"
  local rc=$?
  [ $rc = "$want" ] || fail "ismv $*: exit $rc, expected $want"
  grep -q -- "$pattern" "$tmp/err" || fail "ismv $*: stderr lacks '$pattern': $(cat "$tmp/err")"
}
expect_error 6 "shards 2, 4 of 5 missing" merge "$t.1-5.json" "$t.3-5.json" "$t.5-5.json"
expect_error 1 "are both shard 2 of 2" merge "$t.1-2.json" "$t.2-2.json" "$t.2-2.json"
expect_error 1 "are shards of different runs" merge "$t.1-2.json" "$tmp/explorer.2-2.json"
expect_error 1 "are shards of different runs" merge "$t.1-2.json" "$t.2-5.json"
sed 's/^"error": null/"error": "counterexample 1 of subtree 3 failed its re-check: x"/' "$t.2-2.json" >"$tmp/failed.json"
expect_error 6 "shard 2 of 2 ($tmp/failed.json) failed" merge "$t.1-2.json" "$tmp/failed.json"
sed 's/{"index":1,/{"index":3,/' "$t.2-2.json" >"$tmp/moved.json"
expect_error 2 "subtree 3 is not one of shard 2 of 2" merge "$t.1-2.json" "$tmp/moved.json"
sed 's/^"subtrees": [0-9]*,/"subtrees": 1e300,/' "$t.2-2.json" >"$tmp/huge2.json"
expect_error 1 "split the search into other subtrees" merge "$t.1-2.json" "$tmp/huge2.json"
sed 's/^"subtrees": [0-9]*,/"subtrees": 1e300,/' "$t.1-2.json" >"$tmp/huge1.json"
expect_error 2 "'subtrees' is not a count" merge "$tmp/huge1.json" "$t.2-2.json"
sed 's/^"of": 2,/"of": 1e300,/' "$t.1-2.json" >"$tmp/of.json"
expect_error 2 "'shard' and 'of' are out of range" merge "$tmp/of.json" "$t.2-2.json"
expect_error 1 "takes I/N" verify examples/thermostat/thermostat.yaml --shard 3/2
expect_error 1 "takes I/N" verify examples/thermostat/thermostat.yaml --shard 0/2
expect_error 1 "cannot go with --strategy per-path" verify examples/thermostat/thermostat.yaml --shard 1/2 --strategy per-path
expect_error 1 "cannot be sharded" verify examples/thermostat/thermostat.yaml --shard 1/2 --all --format json
expect_error 2 "is not a shard report" merge "$tmp/thermostat.single.json"
exit $status
