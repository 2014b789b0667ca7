#!/usr/bin/env bash
# verify's SARIF: one result per failure class of the same run's JSON (the
# explorer at bounds 2 and 4), located at the class's failure condition in the
# model; a code flow per result that walks the class's most likely
# counterexample rule by rule, each step at its rule's line, ending at the
# condition; rank = that counterexample's probability in percent; the
# fingerprint of a class the same at both bounds (and in both estimators'
# runs) and distinct across classes; every rule with a full description and
# help; an inconclusive run says so in invocations[0]. The oracle for lines is
# the model's text (grep), not ismv's locations. The SARIF Multitool's
# validation of these logs is in tests/sarif_validate.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
model=examples/robotcar/explorer.yaml
for k in 2 4; do
  "$ISMV" verify "$model" --bound "$k" -f sarif >"$tmp/b$k.sarif" || [ $? = 10 ]
  "$ISMV" verify "$model" --bound "$k" -f json >"$tmp/b$k.json" || [ $? = 10 ]
done
"$ISMV" verify "$model" --bound 2 --probability per-rule -f sarif >"$tmp/pr.sarif" || [ $? = 10 ]
rc=0
"$ISMV" verify examples/robotcar/wall-follower.yaml --bound 12 --mode ideal --budget 0.2 --probability none \
  -f sarif >"$tmp/inc.sarif" 2>/dev/null || rc=$?
[ "$rc" = 5 ] || { echo "inconclusive run: exit $rc, expected 5"; exit 1; }
"$ISMV" verify tests/models/verify/explorer-r0-ideal.yaml -f sarif >"$tmp/ok.sarif" 2>/dev/null || true

/usr/bin/python3 - "$tmp" "$model" <<'PY'
import json, re, sys
tmp, model = sys.argv[1], sys.argv[2]
lines = open(model).read().split("\n")

def line_of(pattern):
    hits = [i + 1 for i, l in enumerate(lines) if re.search(pattern, l)]
    assert len(hits) == 1, (pattern, hits)
    return hits[0]

def region(loc):
    pl = loc["physicalLocation"]
    assert pl["artifactLocation"]["uri"] == model, pl
    return pl["region"]["startLine"]

fingerprints = {}
for k in (2, 4):
    log = json.load(open(f"{tmp}/b{k}.sarif"))
    run = log["runs"][0]
    drv = run["tool"]["driver"]
    assert drv["name"] == "ismv" and drv["version"], drv
    for r in drv["rules"]:
        assert r["shortDescription"]["text"] and r["fullDescription"]["text"] and r["help"]["text"], r
    assert run["invocations"][0]["executionSuccessful"] is True, run["invocations"]
    rep = json.load(open(f"{tmp}/b{k}.json"))
    classes, cexs = rep["classes"], {c["id"]: c for c in rep["counterexamples"]}
    results = run["results"]
    assert len(results) == len(classes) > 0, (k, len(results), len(classes))
    for res, cl in zip(results, classes):
        rule = drv["rules"][res["ruleIndex"]]
        assert res["ruleId"] == rule["id"]
        # located at the failure condition: the action's line with its failure: key
        cond_line = line_of(r"^\s*%s:.*failure:" % re.escape(cl["action"])) if cl["action"] else line_of(r"^failure:")
        assert cl["condition"] in lines[cond_line - 1], (cl, lines[cond_line - 1])
        assert region(res["locations"][0]) == cond_line, (res["locations"], cond_line)
        top = cexs[cl["top"]]
        steps = res["codeFlows"][0]["threadFlows"][0]["locations"]
        assert len(steps) == len(top["path"]) + 1, (len(steps), top["path"])
        for step, rid in zip(steps, top["path"]):
            assert region(step["location"]) == line_of(r"\bid: *%s\b" % re.escape(rid)), (step, rid)
            assert f"--{rid}-->" in step["location"]["message"]["text"], step
        assert region(steps[-1]["location"]) == cond_line
        assert abs(res["rank"] - 100 * (cl["probability"] or 0)) < 1e-9 * 100, (res["rank"], cl["probability"])
        assert 0 <= res["rank"] <= 100
        fp = res["partialFingerprints"]["ismvFailureClass/v1"]
        key = (cl["rule"], cl["action"], cl["condition"])
        assert fingerprints.setdefault(key, fp) == fp, (key, fp, fingerprints[key])
    assert len({r["partialFingerprints"]["ismvFailureClass/v1"] for r in results}) == len(results)
    print(f"bound {k}: {len(results)} results for {len(classes)} classes, "
          f"{sum(len(r['codeFlows'][0]['threadFlows'][0]['locations']) for r in results)} flow steps")
# the same classes under the other estimator: the same fingerprints
pr = json.load(open(f"{tmp}/pr.sarif"))["runs"][0]["results"]
b2 = json.load(open(f"{tmp}/b2.sarif"))["runs"][0]["results"]
assert sorted(r["partialFingerprints"]["ismvFailureClass/v1"] for r in pr) == \
    sorted(r["partialFingerprints"]["ismvFailureClass/v1"] for r in b2)

inc = json.load(open(f"{tmp}/inc.sarif"))["runs"][0]["invocations"][0]
assert inc["executionSuccessful"] is False, inc
notes = inc["toolExecutionNotifications"]
assert len(notes) == 1 and notes[0]["level"] == "error" and notes[0]["message"]["text"].startswith("inconclusive"), notes
ok = json.load(open(f"{tmp}/ok.sarif"))["runs"][0]
assert ok["invocations"][0]["executionSuccessful"] is True and "toolExecutionNotifications" not in ok["invocations"][0]
print("sarif verify: classes, locations, flows, ranks, fingerprints and the inconclusive run as expected")
PY
