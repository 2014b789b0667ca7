#!/usr/bin/env bash
# Fortis's own unit tests of robustification, replayed: each problem of
# fortis-core's SupervisoryRobustifierTests and OASISTests
# (fortis/src/test/kotlin/cmu/s3d/fortis/robustify/), on the specs it loads
# (fortis/src/test/resources/specs, copied to tests/data/fortis_tests), set up
# as the test sets it up (the Kotlin loadX functions, written as Fortis JSON
# configs; maxIter 1), must give the (controllable, observable) pairs the
# test asserts, in its order, compared as sets per solution as its
# assertSynthesisResults does. The expected pairs below are copied from the
# Kotlin assertions, not from our output:
#   testVoting   voting/config.json          Pareto: 6 pairs, Fast: 1
#   testVoting2  voting-2/config.json        Fast: 1 (FLTL safety SELECT_VOTE_BY_VOTER)
#   testTherac   therac25/config.json        Pareto: 2, Fast: 1
#   testTherac2  therac25-2/config.json      Fast: 1, and no solution keeps x,up,e,enter,b
#                                            (FLTL safety OVER_DOSE)
#   testTherac3  therac25/config-3.json      Pareto: 2, Fast: 1 (priority-0 behaviours, no progress)
#   testPump     pump/config.json            Pareto: 1, Fast: 1 (Fortis runs it only with tests=all)
#   OASISTests   */config-oasis.json         voting, therac, pump: a supervisor exists
# Run by tests/run.sh (one test); needs ISMV.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
D=tests/data/fortis_tests
fail=0

# check NAME CONFIG METHOD EXPECTED: EXPECTED is a Python list of
# (controllable, observable) pairs, Fortis's spelling (line.1.x).
check() {
  local name=$1 cfg=$2 method=$3 expected=$4
  if ! "$ISMV" robustify "$cfg" --method "$method" --format json >"$tmp/out.json" 2>"$tmp/err"; then
    echo "$name: robustify failed"
    cat "$tmp/err"
    fail=1
    return
  fi
  python3 - "$tmp/out.json" "$expected" "$name" <<'PY' || fail=1
import ast, json, re, sys
out = json.load(open(sys.argv[1]))
expected = ast.literal_eval(sys.argv[2])
norm = lambda a: re.sub(r"\[(\w+)\]", r".\1", a)
got = [({norm(a) for a in s["controllable"]}, {norm(a) for a in s["observable"]}) for s in out["solutions"]]
want = [(set(c), set(o)) for c, o in expected]
if got != want:
    print("%s: solutions differ from Fortis's test" % sys.argv[3])
    print("  got:  %s" % [(sorted(c), sorted(o)) for c, o in got])
    print("  want: %s" % [(sorted(c), sorted(o)) for c, o in want])
    sys.exit(1)
PY
}

V5='["confirm", "select", "back", "password", "vote"]'
VO='"back", "confirm", "password", "select", "vote"'
check testVoting/Pareto $D/voting/config.json pareto "[
  ($V5, [$VO, 'v.enter', 'v.exit']),
  ($V5, [$VO, 'eo.exit', 'v.exit']),
  ($V5, [$VO, 'eo.exit', 'v.enter']),
  ($V5, [$VO, 'eo.enter', 'v.exit']),
  ($V5, [$VO, 'eo.enter', 'v.enter']),
  ($V5, [$VO, 'eo.enter', 'eo.exit'])]"
check testVoting/Fast $D/voting/config.json fast "[($V5, [$VO, 'v.enter', 'v.exit'])]"

V6='["back", "confirm", "password", "select", "v.exit", "vote"]'
check testVoting2/Fast $D/voting-2/config.json fast "[($V6, $V6)]"

TO='["b", "e", "enter", "fire_ebeam", "fire_xray", "setMode", "up", "x"]'
for t in "testTherac $D/therac25/config.json" "testTherac3 $D/therac25/config-3.json"; do
  set -- $t
  check "$1/Pareto" "$2" pareto "[
    (['b', 'fire_ebeam', 'fire_xray', 'setMode'], $TO),
    (['enter', 'fire_ebeam', 'fire_xray', 'setMode'], $TO)]"
  check "$1/Fast" "$2" fast "[(['enter', 'fire_ebeam', 'fire_xray', 'setMode'], $TO)]"
done

check testTherac2/Fast $D/therac25-2/config.json fast \
  "[(['up'], ['b', 'e', 'enter', 'fire_ebeam', 'fire_xray', 'reset', 'set_ebeam', 'set_xray', 'up', 'x'])]"
# testTherac2 also asserts that no solution accepts x, up, e, enter, b as a
# subword: that behaviour (preferred 1) is not kept
python3 - "$tmp/out.json" <<'PY' || fail=1
import json, sys
out = json.load(open(sys.argv[1]))
if any(0 in s["kept"] for s in out["solutions"]) or out["preferred"][0]["behaviour"] != ["x", "up", "e", "enter", "b"]:
    print("testTherac2: a solution keeps x, up, e, enter, b")
    sys.exit(1)
PY

PC='"line.1.dispense_main_med_flow", "line.1.flow_complete", "line.1.set_rate", "line.1.start_dispense"'
PO='"line.1.change_settings", "line.1.clear_rate", "line.1.confirm_settings", "line.1.dispense_main_med_flow",
    "line.1.flow_complete", "line.1.set_rate", "line.1.start_dispense"'
check testPump/Pareto $D/pump/config.json pareto "[([$PC], ['battery_charge', $PO, 'unplug'])]"
check testPump/Fast $D/pump/config.json fast "[([$PC], [$PO, 'turn_off', 'turn_on', 'unplug'])]"

# OASISTests: synthesize() returns a supervisor (assertNotNull)
for ex in voting therac25 pump; do
  "$ISMV" robustify $D/$ex/config-oasis.json --format json >"$tmp/out.json" 2>"$tmp/err" ||
    { echo "OASISTests/$ex: robustify failed"; cat "$tmp/err"; fail=1; continue; }
  python3 -c 'import json,sys; sys.exit(0 if len(json.load(open(sys.argv[1]))["solutions"]) == 1 else 1)' \
    "$tmp/out.json" || { echo "OASISTests/$ex: no supervisor"; fail=1; }
done

[ $fail = 0 ] && echo ok
exit $fail
