#!/usr/bin/env bash
# `ismv check` for pipelines: the report is the same for every -j; the closing
# count is right; --quiet shows only what does not pass; JSON, JUnit and SARIF
# are well-formed and name every file, failing expectation and invalid file;
# a file name with < & , " and a space survives every format.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
odd="$tmp/odd <&,\" name.yaml"
cp tests/models/verify/explorer-b1-ideal.yaml "$odd"
files=(tests/models/verify/explorer-b1-ideal.yaml tests/models/verify/errors/expect-fails.yaml
       tests/models/verify/errors/duplicate-key.yaml examples/robustness/abp/abp.yaml "$odd")
for fmt in text json junit sarif; do
  rc1=0; rc3=0
  "$ISMV" check -f "$fmt" "${files[@]}" >"$tmp/j1.$fmt" 2>"$tmp/e1.$fmt" || rc1=$?
  "$ISMV" check -j 3 -f "$fmt" "${files[@]}" >"$tmp/j3.$fmt" 2>"$tmp/e3.$fmt" || rc3=$?
  [ "$rc1" = 2 ] && [ "$rc3" = 2 ] || { echo "$fmt: exit $rc1 / $rc3, expected 2 (an invalid file)"; exit 1; }
  cmp "$tmp/j1.$fmt" "$tmp/j3.$fmt" || { echo "$fmt: -j 3 report differs"; exit 1; }
  cmp "$tmp/e1.$fmt" "$tmp/e3.$fmt" || { echo "$fmt: -j 3 diagnostics differ"; exit 1; }
done
tail -1 "$tmp/j1.text" | grep -qx '3 passed, 1 failed, 1 errors'
grep -qx 'tests/models/verify/errors/expect-fails.yaml: failed' "$tmp/j1.text"
grep -qx 'tests/models/verify/errors/duplicate-key.yaml: error' "$tmp/j1.text"
"$ISMV" check -q "${files[@]}" >"$tmp/q" 2>/dev/null || true
[ "$(wc -l <"$tmp/q")" = 3 ] || { echo "--quiet printed:"; cat "$tmp/q"; exit 1; }
! grep -q ': ok$' "$tmp/q"
# -v adds the reports
"$ISMV" check -v tests/models/verify/explorer-b1-ideal.yaml | grep -q 'counterexample'

python3 - "$tmp" "$odd" <<'PY'
import json, sys, urllib.parse
import xml.dom.minidom as minidom
tmp, odd = sys.argv[1], sys.argv[2]
j = json.load(open(f"{tmp}/j1.json"))
assert j["tool"] == "ismv" and j["command"] == "check" and j["exit_code"] == 2, j
assert (j["passed"], j["failed"], j["errors"]) == (3, 1, 1), j
names = [f["file"] for f in j["files"]]
assert names[-1] == odd, names
assert [f["result"] for f in j["files"]] == ["ok", "failed", "error", "ok", "ok"], j
fail = j["files"][1]["diagnostics"][0]
assert fail["line"] == 15 and fail["message"].startswith("expectation failed"), fail

doc = minidom.parse(f"{tmp}/j1.junit")
cases = doc.getElementsByTagName("testcase")
assert [c.getAttribute("name") for c in cases] == names
suite = doc.getElementsByTagName("testsuite")[0]
assert (suite.getAttribute("tests"), suite.getAttribute("failures"), suite.getAttribute("errors")) == ("5", "1", "1")
assert cases[1].getElementsByTagName("failure") and cases[2].getElementsByTagName("error")

s = json.load(open(f"{tmp}/j1.sarif"))
assert s["version"] == "2.1.0"
run = s["runs"][0]
rules = run["tool"]["driver"]["rules"]
for r in rules:
    assert r["shortDescription"]["text"] and r["fullDescription"]["text"] and r["help"]["text"], r
res = run["results"]
ids = [r["ruleId"] for r in res]
assert ids.count("ISMV-CHECK-EXPECT") == 1 and ids.count("ISMV-CHECK-INPUT") >= 1, ids
for r in res:
    assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
    loc = r["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] and "region" in loc, r
    assert r["partialFingerprints"]
assert run["invocations"][0]["executionSuccessful"] is False  # an invalid file
print("check formats: ok")
PY
# the odd name's URI decodes back to the name (a failing expectation there)
cp tests/models/verify/errors/expect-fails.yaml "$odd"
"$ISMV" check -f sarif "$odd" >"$tmp/odd.sarif" 2>/dev/null || true
python3 -c "
import json,sys,urllib.parse
r=json.load(open('$tmp/odd.sarif'))['runs'][0]['results'][0]
assert urllib.parse.unquote(r['locations'][0]['physicalLocation']['artifactLocation']['uri'])==sys.argv[1]
" "$odd"
