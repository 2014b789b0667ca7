#!/usr/bin/env bash
# An inconclusive run says so in every machine format, never reads as a clean
# one: verify's JSON (verdict inconclusive, exit_code 5, stats.complete
# false), SARIF (executionSuccessful false with a notification) and JUnit (an
# <error> with the reason), each with exit 5; the same run's counterexamples
# found before the budget ran out are kept in JSON and SARIF alike.
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
print("inconclusive: JSON, SARIF and JUnit all say so, exit 5")
PY
