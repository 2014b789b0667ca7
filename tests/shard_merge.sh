#!/usr/bin/env bash
# `ismv verify --shard I/N` + `ismv merge` (docs/scale-out.md): the report
# is a function of the model and the options only. The default single run
# (no --split-depth) is the oracle: the same run split at depth 0, 1, 2 and
# 3 (--jobs 2), with --jobs 1 and 2, and the merge of N = 1, 2 and 5 shards
# (split at depth 2) give it byte for byte, with its exit code, in text and
# JSON. At bound 7, where the default report is the top-K search, on the
# wall-follower (violated) and the drone (verified); at bound 4 with
# --search top-k and --search full on the thermostat and the explorer
# (--top 3), and unranked on the explorer (--probability none: every
# counterexample shown with the relaxation's witness,
# verifier/paths/witness.h); the shards' subtrees are exactly those of the
# run, each once;
# the top-K merge of one shard's parts reversed or shuffled is the same. A
# shard cut short by --timeout: merge is inconclusive (exit 5, or 10 when a
# counterexample was found) and names the shard. Then the errors: a missing
# shard (exit 6, named), a shard given twice, shards of different runs or
# splits (exit 1), a failed shard (exit 6), top-K shards merged into sarif
# (exit 1), and --shard with a malformed I/N (exit 1).
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*" >&2; status=1; }
bound=4
[ "${MODE:-}" = asan ] && bound=3
min_subtrees=5

run_app() { # NAME, MODEL, the shards' extra options (one word or ""), options...
  local name=$1 model=$2 shard_extra=$3
  shift 3
  local args=("$@")
  "$ISMV" verify "$model" "${args[@]}" -q >"$tmp/$name.single.txt" 2>/dev/null
  local want_rc=$?
  "$ISMV" verify "$model" "${args[@]}" -q --format json >"$tmp/$name.single.json" 2>/dev/null
  # the split and the threads do not show in the report
  for run in "--split-depth 0 --jobs 2" "--split-depth 1 --jobs 2" "--split-depth 2 --jobs 2" \
    "--split-depth 3 --jobs 2" "--jobs 1" "--jobs 2"; do
    "$ISMV" verify "$model" "${args[@]}" $run -q >"$tmp/s.txt" 2>/dev/null
    local rc=$?
    "$ISMV" verify "$model" "${args[@]}" $run -q --format json >"$tmp/s.json" 2>/dev/null
    [ $rc = "$want_rc" ] || fail "$name $run: exit $rc, the default run $want_rc"
    cmp -s "$tmp/s.txt" "$tmp/$name.single.txt" || { fail "$name $run: text differs from the default run"; diff "$tmp/$name.single.txt" "$tmp/s.txt" | head -5; }
    cmp -s "$tmp/s.json" "$tmp/$name.single.json" || { fail "$name $run: JSON differs from the default run"; diff "$tmp/$name.single.json" "$tmp/s.json" | head -5; }
  done
  for n in 1 2 5; do
    local files=() total=0
    for i in $(seq 1 "$n"); do
      "$ISMV" verify "$model" "${args[@]}" $shard_extra --jobs 2 --shard "$i/$n" -o "$tmp/$name.$i-$n.json" 2>"$tmp/err"
      local rc=$?
      [ $rc = 0 ] || fail "$name shard $i/$n: exit $rc, expected 0: $(cat "$tmp/err")"
      files+=("$tmp/$name.$i-$n.json")
    done
    # every subtree exactly once over the shards, and the owner's rule (index mod N)
    python3 - "$n" "$min_subtrees" "${files[@]}" <<'PY' || fail "$name N=$n: the shards' subtrees are not a partition"
import json, sys
n, least = int(sys.argv[1]), int(sys.argv[2]); seen = []
docs = [json.load(open(f)) for f in sys.argv[3:]]
total = docs[0]["subtrees"]
for d in docs:
    assert d["subtrees"] == total and d["of"] == n
    for p in d["parts"]:
        assert p["index"] % n == d["shard"] - 1, (p["index"], d["shard"])
        seen.append(p["index"])
assert sorted(seen) == list(range(total)), (sorted(seen), total)
assert total >= least, total
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
  if grep -q '"search": "top-k"' "$tmp/$name.single.json"; then
    # the top-K merge does not depend on the order of the parts (MPI merges them as they arrive)
    for order in reversed shuffled; do
      python3 - "$order" "$tmp/$name.1-1.json" "$tmp/$name.$order.json" <<'PY'
import json, random, sys
d = json.load(open(sys.argv[2]))
if sys.argv[1] == "reversed":
    d["parts"].reverse()
else:
    random.Random(18).shuffle(d["parts"])
json.dump(d, open(sys.argv[3], "w"))
PY
      "$ISMV" merge "$tmp/$name.$order.json" --format json >"$tmp/m.json" 2>/dev/null
      cmp -s "$tmp/m.json" "$tmp/$name.single.json" || fail "$name: the merge of the parts $order differs"
    done
  fi
}

run_app wall-follower-b7 examples/robotcar/wall-follower.yaml "" --bound 7
grep -q '"search": "top-k"' "$tmp/wall-follower-b7.single.json" || fail "wall-follower at bound 7: not the top-K search by default"
grep -q '"split_depth": 2,' "$tmp/wall-follower-b7.1-2.json" || fail "wall-follower at bound 7: the shards did not split at depth 2"
grep -q ': violated (mode actual, bound 7)$' "$tmp/wall-follower-b7.single.txt" || fail "wall-follower at bound 7: $(head -1 "$tmp/wall-follower-b7.single.txt")"
min_subtrees=0 # every class of the drone is empty at bound 7: nothing below the split to hand out
run_app drone-b7 examples/drone/drone.yaml "" --bound 7
grep -q '^altitude-hold-drone: verified' "$tmp/drone-b7.single.txt" || fail "drone at bound 7: $(head -2 "$tmp/drone-b7.single.txt")"
min_subtrees=5
run_app thermostat examples/thermostat/thermostat.yaml --split-depth=2 --bound "$bound" --search full
run_app explorer examples/robotcar/explorer.yaml --split-depth=2 --bound "$bound" --search full --top 3
run_app thermostat-topk examples/thermostat/thermostat.yaml --split-depth=2 --bound "$bound" --search top-k
run_app explorer-topk examples/robotcar/explorer.yaml --split-depth=2 --bound "$bound" --search top-k --top 3
run_app explorer-unranked examples/robotcar/explorer.yaml --split-depth=2 --bound "$bound" --search full \
  --probability none --top 1000

# One shard cut short by --timeout (every shard finishing in 1 ms is not
# possible here): merge reports the run incomplete and names the shard.
cut_case() { # NAME, MODEL, expected merge exit, options...
  local name=$1 model=$2 want=$3
  shift 3
  "$ISMV" verify "$model" "$@" --shard 1/2 -o "$tmp/$name.cut1.json" 2>/dev/null
  "$ISMV" verify "$model" "$@" --shard 2/2 --timeout 0.001 -o "$tmp/$name.cut2.json" 2>"$tmp/err"
  local rc=$?
  [ $rc = 5 ] || fail "$name: the shard cut short exits $rc, expected 5"
  grep -q "shard 2 of 2: .*cut short: the time limit (--timeout) ran out" "$tmp/err" || fail "$name: shard stderr: $(cat "$tmp/err")"
  "$ISMV" merge "$tmp/$name.cut1.json" "$tmp/$name.cut2.json" >"$tmp/m.txt" 2>"$tmp/err"
  rc=$?
  [ $rc = "$want" ] || fail "$name: merge of a shard cut short exits $rc, expected $want"
  grep -q "shard 2 of 2 cut short ($tmp/$name.cut2.json: the time limit (--timeout) ran out)" "$tmp/m.txt" ||
    fail "$name: the merged report does not name the shard cut short: $(cat "$tmp/m.txt")"
  "$ISMV" merge "$tmp/$name.cut1.json" "$tmp/$name.cut2.json" --format json >"$tmp/m.json" 2>/dev/null
  grep -q '"partial": true' "$tmp/m.json" || fail "$name: the merged JSON is not marked partial"
  grep -q '"reason": "shard 2 of 2 cut short' "$tmp/m.json" || fail "$name: the merged JSON does not name the shard"
}
cut_case drone examples/drone/drone.yaml 5 --bound 7
grep -q "^altitude-hold-drone: inconclusive" "$tmp/m.txt" || fail "drone cut short: not inconclusive: $(head -1 "$tmp/m.txt")"
cut_case thermostat-cut examples/thermostat/thermostat.yaml 10 --bound "$bound" --split-depth 2 --search top-k
grep -q "^search incomplete: shard 2 of 2 cut short" "$tmp/m.txt" || fail "thermostat cut short: $(cat "$tmp/m.txt")"

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
expect_error 1 "they merge into text or json" merge "$tmp/thermostat-topk.1-2.json" "$tmp/thermostat-topk.2-2.json" --format sarif
exit $status
