#!/usr/bin/env bash
# --timeout on every command (issue 11): each run below would take minutes
# (or hours) without the limit; with --timeout T it must end with exit 5
# (verify's ranking case: 10, a real violation was found), a report marked
# partial, within a few seconds of T (SLACK, tripled under ASan). Every run
# is wrapped in `timeout 60`, so a limit that does not work fails the test
# instead of hanging the suite.
#   verify      wall-follower, bound 12, ideal, no ranking: the search
#   verify      explorer, bound 5, joint: the ranking (17 s without a limit)
#   simulate    corridor with 10^8 runs per counterexample
#   robustness  five interleaved counters (4.5e7 states): the composition
#   envelope    a ring of 13 states: |Δ| = 2^12 maximal deviations
#   robustify   voting-4-4 of Fortis' thesis examples (tests/data), Pareto
#               (over 10 min without a limit, docs/robustify.md)
#   masking     BRP N100 with 1000 retransmissions, strong game (7e5 states)
#   eventb      an invariant whose proof is Fermat's n = 3 (Z3 cannot decide)
#   check       the wall-follower search of the verify case, as a model
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
T=1
slack=5
[ "${MODE:-}" = asan ] && slack=15
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
now() { date +%s.%N; }

# run NAME WANT_RC PATTERN ismv-args...: runs ismv with --timeout $T; its
# stdout must match the extended regex PATTERN.
run() {
  local name=$1 want=$2 pattern=$3 t0 took rc
  shift 3
  t0=$(now)
  timeout 60 "$ISMV" "$@" --timeout $T >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  took=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
  if [ $rc != "$want" ]; then
    echo "FAIL: $name: exit $rc, expected $want"
    sed 's/^/  /' "$tmp/err" | head -5
    fail=1
  fi
  if ! grep -Eq "$pattern" "$tmp/out"; then
    echo "FAIL: $name: no partial marker /$pattern/ in the report"
    head -5 "$tmp/out" | sed 's/^/  /'
    fail=1
  fi
  if awk -v t="$took" -v l="$((T + slack))" 'BEGIN { exit !(t > l) }'; then
    echo "FAIL: $name: ended after $took s (limit $T s)"
    fail=1
  fi
  echo "$name: exit $rc after $took s"
}

run verify 5 '"complete": false' verify examples/robotcar/wall-follower.yaml --bound 12 --mode ideal \
  --probability none -f json
grep -q '"reason": "the time limit (--timeout) ran out"' "$tmp/out" || { echo "FAIL: verify: reason"; fail=1; }
# the ranking: the search (about 1 s) ends first, the limit stops the ranking
T=4 run verify-ranking 10 '"complete": false' verify examples/robotcar/explorer.yaml --bound 5 -f json
[ "${MODE:-}" = asan ] || grep -q 'ran out while ranking' "$tmp/out" || {
  echo "FAIL: verify-ranking: the limit did not stop the ranking"
  fail=1
}
# the old name, from the command line and from the model
T=1 run verify-budget 5 '"complete": false' verify examples/robotcar/wall-follower.yaml --bound 12 \
  --mode ideal --probability none -f json --budget 1

run simulate 5 '^partial: the time limit \(--timeout\) ran out; [0-9]+ of 9 counterexamples simulated' \
  simulate tests/cases/probability/corridor.yaml --runs 100000000

cat >"$tmp/sys.lts" <<'EOF'
C(N=9) = C[0],
C[i:0..N] = (tick -> C[(i+1)%(N+1)] | reset -> C[0]).
||SYS = (a:C(29) || b:C(30) || c:C(31) || d:C(37) || e:C(41)).
EOF
echo 'ENV = (a.tick -> ENV | a.reset -> ENV).' >"$tmp/env.lts"
echo 'property P = (a.tick -> P | a.reset -> P).' >"$tmp/p.lts"
printf 'kind: robustness\nsystem: sys.lts\nenvironment: env.lts\nproperty: p.lts\n' >"$tmp/r.yaml"
run robustness 5 '^partial: the time limit \(--timeout\) ran out' robustness "$tmp/r.yaml" --max-states 100000000
grep -q 'sys.lts:3:3: error: the time limit (--timeout) ran out' "$tmp/err" || {
  echo "FAIL: robustness: the stopped composition is not located"
  fail=1
}
run robustness-json 5 '"partial": true' robustness "$tmp/r.yaml" --max-states 100000000 -f json

n=13
{
  printf 'E0 = (a -> E1)'
  for ((i = 1; i < n; i++)); do printf ',\nE%d = (a -> E%d)' "$i" $(((i + 1) % n)); done
  printf ' + {b}.\n'
} >"$tmp/ring.lts"
echo 'C = (a -> C | b -> C).' >"$tmp/ctrl.lts"
{
  printf 'property P = Q0,\nQ0 = (a -> Q1 | b -> Q0)'
  for ((i = 1; i < n - 1; i++)); do printf ',\nQ%d = (a -> Q%d | b -> Q0)' "$i" $((i + 1)); done
  printf ',\nQ%d = (a -> Q0).\n' $((n - 1))
} >"$tmp/ringp.lts"
printf 'kind: envelope\nenvironment: ring.lts\ncontroller: ctrl.lts\nproperty: ringp.lts\n' >"$tmp/ring.yaml"
run envelope 5 '^partial: the time limit \(--timeout\) ran out' envelope "$tmp/ring.yaml"

run robustify 5 '^bounded: the timeout limit stopped the search' robustify \
  tests/data/robustify_voting2/config-pareto.json

sed 's/MAX == 20/MAX == 1000/' examples/masking/faulty/brp/brpN100M20.test >"$tmp/brpN100M1000.test"
cp examples/masking/nominal/brp/brpN100.test "$tmp/"
printf 'kind: masking\nnominal: brpN100.test\nimplementation: brpN100M1000.test\n' >"$tmp/m.yaml"
run masking 5 '^partial: the time limit \(--timeout\) ran out; stopped while' masking "$tmp/m.yaml" --weak false
run masking-json 5 '"partial": true' masking "$tmp/m.yaml" --weak false -f json

cat >"$tmp/fermat.yaml" <<'EOF'
kind: eventb
name: fermat
variables:
  tn: {type: enum, values: [p, c]}
  x: {type: int}
  y: {type: int}
  z: {type: int}
invariant: "x > 0 and y > 0 and z > 0 and x*x*x + y*y*y != z*z*z"
initial: "tn == c and x == 1 and y == 1 and z == 1"
plant:
  - {name: step, params: {d: int}, guard: "true", action: "tn' == p and x' == x and y' == y and z' == z"}
controller:
  - {name: move, params: {d: int}, guard: "true", action: "tn' == c and x' == x + 1 and y' == y and z' == z"}
EOF
run eventb 5 '^inconclusive: the time limit \(--timeout\) ran out; the report is partial' eventb "$tmp/fermat.yaml"
run eventb-json 5 '"unknown": true' eventb "$tmp/fermat.yaml" -f json

sed -e 's/^verify:.*//' -e 's/^expect:.*//' examples/robotcar/wall-follower.yaml >"$tmp/wf.yaml"
printf 'verify: {bound: 12, mode: ideal}\n' >>"$tmp/wf.yaml"
run check 5 'wf.yaml: inconclusive' check "$tmp/wf.yaml"
exit $fail
