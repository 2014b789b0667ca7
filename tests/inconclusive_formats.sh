#!/usr/bin/env bash
# An inconclusive run says so in every machine format, never reads as a clean
# one: verify's JSON (verdict inconclusive, exit_code 5, stats.complete
# false), SARIF (executionSuccessful false with a notification) and JUnit (an
# <error> with the reason), each with exit 5; the same run's counterexamples
# found before the budget ran out are kept in JSON and SARIF alike. Then the
# other analyses stopped by --timeout on inputs that take minutes
# (tests/lib/long_runs.sh): robustness, envelope, masking and eventb SARIF
# (executionSuccessful false, the time limit in the notification, exit 5),
# and check's JUnit (a failure, not a pass), SARIF, text summary (failed,
# with "(1 inconclusive)") and JSON counts of such a file; the
# stopped envelope's DOT opens with a partial comment, and the stopped
# simulation's SVG says partial in its title.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(verify examples/robotcar/wall-follower.yaml --bound 12 --mode ideal --budget 0.2 --probability none)
for fmt in json sarif junit; do
  rc=0
  "$ISMV" "${args[@]}" -f "$fmt" >"$tmp/r.$fmt" 2>/dev/null || rc=$?
  [ "$rc" = 5 ] || { echo "$fmt: exit $rc, expected 5"; exit 1; }
done
. tests/lib/long_runs.sh
long_runs_setup "$tmp"
stopped() { # NAME FORMAT ISMV-ARGS...: in the background, with --timeout 1
  local name=$1 fmt=$2
  shift 2
  {
    rc=0
    timeout 60 "$ISMV" "$@" --timeout 1 -f "$fmt" >"$tmp/$name.$fmt" 2>/dev/null || rc=$?
    echo "$rc" >"$tmp/$name.rc"
  } &
}
stopped robustness sarif robustness "$tmp/r.yaml" --max-states 100000000
stopped envelope sarif envelope "$tmp/ring.yaml"
stopped envelope-dot dot envelope "$tmp/ring.yaml"
stopped simulate text simulate tests/cases/probability/corridor.yaml --runs 100000000 --svg "$tmp/simulate.svg"
stopped masking sarif masking "$tmp/m.yaml" --weak false
stopped eventb sarif eventb "$tmp/fermat.yaml"
stopped check sarif check "$tmp/wf.yaml"
stopped check-junit junit check "$tmp/wf.yaml"
stopped check-text text check "$tmp/wf.yaml" tests/models/verify/explorer-b1-ideal.yaml
stopped check-json json check "$tmp/wf.yaml" tests/models/verify/explorer-b1-ideal.yaml
wait
for name in robustness envelope envelope-dot simulate masking eventb check check-junit check-text check-json; do
  rc=$(cat "$tmp/$name.rc")
  [ "$rc" = 5 ] || { echo "$name (stopped): exit $rc, expected 5"; exit 1; }
done

/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
import xml.etree.ElementTree as ET
tmp = sys.argv[1]
j = json.load(open(f"{tmp}/r.json"))
assert j["verdict"] == "inconclusive" and j["exit_code"] == 5 and j["stats"]["complete"] is False, j["verdict"]
assert j["reason"], j
inv = json.load(open(f"{tmp}/r.sarif"))["runs"][0]["invocations"][0]
assert inv["executionSuccessful"] is False, inv
assert inv["toolExecutionNotifications"][0]["message"]["text"] == "inconclusive: " + j["reason"], inv
suite = ET.parse(f"{tmp}/r.junit").getroot().find("testsuite")
assert suite.get("errors") == "1", suite.attrib
err = suite.find("testcase").find("error")
assert err is not None and err.get("message") == j["reason"], ET.tostring(suite)
for name in ["robustness", "envelope", "masking", "eventb", "check"]:
    log = json.load(open(f"{tmp}/{name}.sarif"))
    assert log["version"] == "2.1.0", name
    inv = log["runs"][0]["invocations"][0]
    assert inv["executionSuccessful"] is False, (name, inv)
    notes = [n["message"]["text"] for n in inv["toolExecutionNotifications"]]
    assert notes and all(n["level"] == "error" for n in inv["toolExecutionNotifications"]), (name, inv)
    want = "inconclusive" if name == "check" else "time limit (--timeout) ran out"
    assert any(want in t for t in notes), (name, notes)
dot = open(f"{tmp}/envelope-dot.dot").read()
assert dot.startswith("// partial: the time limit (--timeout) ran out;") and "digraph d1 {" in dot, dot[:200]
svg = ET.parse(f"{tmp}/simulate.svg").getroot()
texts = [t.text or "" for t in svg.iter("{http://www.w3.org/2000/svg}text")]
assert any("; partial: the time limit (--timeout) ran out;" in t for t in texts), texts[:3]
summary = open(f"{tmp}/check-text.text").read().splitlines()
assert summary[-1] == "1 passed, 1 failed (1 inconclusive), 0 errors", summary
assert summary[0].endswith("wf.yaml: inconclusive"), summary
cj = json.load(open(f"{tmp}/check-json.json"))
assert (cj["passed"], cj["failed"], cj["inconclusive"], cj["errors"]) == (1, 1, 1, 0), cj
assert cj["verdict"] == "inconclusive" and cj["partial"] is True and cj["reason"] == "1 of 2 files inconclusive", cj
suite = ET.parse(f"{tmp}/check-junit.junit").getroot().find("testsuite")
assert suite.get("failures") == "1" and suite.get("tests") == "1", suite.attrib
assert suite.find("testcase").find("failure").get("type") == "inconclusive", ET.tostring(suite)
print("inconclusive: JSON, SARIF and JUnit all say so, exit 5; stopped robustness, envelope, masking, "
      "eventb and check SARIF (and check's JUnit) too")
PY
