#!/usr/bin/env bash
# Names with < > & , " ' a space, a newline and control characters survive every
# CSV/XML/SVG writer: simulate's CSV (read back with python's csv module) and
# SVG, verify's and check's JUnit, eventb's SVG (read back with xml.etree).
# The oracle is verify's JSON (another writer, read by python's json): the CSV
# must hold its paths exactly, the XML the same names with each control
# character XML 1.0 forbids replaced by U+FFFD. CSV numbers are the shortest
# form that reads back (as JSON writes them).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the corridor model of tests/cases/probability with hostile names
sed -e 's/^name: corridor$/name: "m<1>\&\\"q\\",'"'"'x'"'"' \\x01\\x1f end"/' \
  -e 's/\bGo\b/"G<o>"/g' -e 's/\bStop\b/"S\&top"/g' \
  -e 's/id: halt/id: "h<a>\&l,t\\"\\x02"/' -e 's/id: go/id: "g,o"/' -e 's/id: hug/id: " hug\\n"/' \
  tests/cases/probability/corridor.yaml >"$tmp/m.yaml"
odd="$tmp/odd <&,\"$(printf '\x03') name.yaml"
cp "$tmp/m.yaml" "$odd"
cp tests/models/eventb/split_real.yaml "$tmp/e.yaml"
sed -i 's/^name: split_real$/name: "s<p>\&l,\\"it\\"\\x04"/' "$tmp/e.yaml"

"$ISMV" verify "$tmp/m.yaml" -f json >"$tmp/v.json" || [ $? = 10 ]
"$ISMV" verify "$tmp/m.yaml" -f junit >"$tmp/v.xml" || [ $? = 10 ]
"$ISMV" simulate "$tmp/m.yaml" --runs 50 -f csv --svg "$tmp/s.svg" >"$tmp/s.csv"
"$ISMV" check -f junit "$odd" >"$tmp/c.xml" || [ $? = 10 ]
"$ISMV" eventb "$tmp/e.yaml" --max-error D --robustify preserving --svg "$tmp/e.svg" >/dev/null

/usr/bin/python3 - "$tmp" "$odd" <<'PY'
import csv, json, re, sys
import xml.etree.ElementTree as ET
tmp, odd = sys.argv[1], sys.argv[2]
name = "m<1>&\"q\",'x' \x01\x1f end"
ids = ["h<a>&l,t\"\x02", "g,o", " hug\n"]

def xmlsafe(s):  # what XML can carry: forbidden control characters as U+FFFD
    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", "\ufffd", s)

v = json.load(open(f"{tmp}/v.json"))
assert v["model"] == name, v["model"]
paths = [" ".join(c["path"]) for c in v["counterexamples"]]
assert set(r for c in v["counterexamples"] for r in c["path"]) == set(ids), paths

# simulate's CSV: every path of verify's JSON, verbatim; numbers shortest
rows = list(csv.DictReader(open(f"{tmp}/s.csv", newline="")))
assert sorted(r["path"] for r in rows) == sorted(paths), ([r["path"] for r in rows], paths)
def digits(t):
    return len(re.sub(r"^-?0*\.?0*", "", t.lower().split("e")[0]).replace(".", ""))
for r in rows:
    for k in ("predicted", "predicted_error", "observed", "ci_lo", "ci_hi"):
        x = float(r[k])
        assert digits(r[k]) <= digits(repr(x)), (k, r[k], repr(x))

# simulate's SVG: the title holds the model's name, each point's tooltip its path
svg = ET.parse(f"{tmp}/s.svg").getroot()
ns = "{http://www.w3.org/2000/svg}"
texts = [t.text for t in svg.iter(ns + "text")]
assert texts[0] == xmlsafe(name) + ": predicted (joint) vs simulated", texts[0]
tips = sorted(t.text.split(": ", 1)[1] for t in svg.iter(ns + "title"))
assert tips == sorted(xmlsafe(p) for p in paths), (tips, paths)

# verify's JUnit: the suite is named after the model, the failure lists every rule
ju = ET.parse(f"{tmp}/v.xml").getroot()
suite = ju.find("testsuite")
assert suite.get("name") == xmlsafe(name), suite.get("name")
assert suite.find("testcase").get("name").startswith(xmlsafe(name) + " (mode "), suite.find("testcase").get("name")
body = suite.find("testcase").find("failure").text
for i in ids:
    assert xmlsafe(i) in body, (i, body)
assert "G<o>" in body and "S&top" in body, body

# check's JUnit: the test case is named after the file
cj = ET.parse(f"{tmp}/c.xml").getroot()
case = cj.find("testsuite").find("testcase")
assert case.get("name") == xmlsafe(odd), (case.get("name"), odd)
assert case.find("failure") is not None

# eventb's SVG: the model's name in the title
e = ET.parse(f"{tmp}/e.svg").getroot()
first = next(e.iter(ns + "text")).text
assert first.startswith(xmlsafe("s<p>&l,\"it\"\x04") + ": compartments of the perceived x_hat"), first
print(f"writers: {len(rows)} CSV rows, {len(tips)} SVG points, JUnit and eventb SVG round-trip")
PY
