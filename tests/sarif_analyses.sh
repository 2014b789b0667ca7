#!/usr/bin/env bash
# SARIF of robustness, envelope, masking and eventb agrees with the same run's
# JSON: a result per failing eventb check (at its event's line in the model)
# or one for a missing robustification (at the uncertainty); masking's result
# with the refuter's play as its code flow; a result per deviation class that
# one side of a robustness comparison tolerates and the other does not; the
# envelope comparison's witnesses; the normal violation of each LTS analysis
# as an error; each violated progress property, at its declaration; fingerprints distinct within a log and equal across two runs;
# every rule with a full description and help; an inconclusive run says so.
# The SARIF Multitool's validation of these logs is in tests/sarif_validate.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
both() { # NAME COMMAND ARGS...: NAME.sarif, NAME.json and NAME.again.sarif from one command line
  local name=$1
  shift
  "$ISMV" "$@" -f sarif >"$tmp/$name.sarif" 2>/dev/null || true
  "$ISMV" "$@" -f sarif >"$tmp/$name.again.sarif" 2>/dev/null || true
  "$ISMV" "$@" -f json >"$tmp/$name.json" 2>/dev/null || true
}
both rodin eventb tests/models/eventb/rodin_fails.yaml
both eco eventb examples/eventb/heater_eco.yaml --robustify preserving
both heater eventb examples/eventb/heater.yaml
"$ISMV" eventb examples/eventb/heater.yaml --rlimit 1 -f sarif >"$tmp/unknown.sarif" 2>/dev/null || true
both phils masking examples/masking/phils2.yaml
both raft masking examples/masking/raft1.yaml
both abp robustness examples/robustness/abp/compare.yaml
both therac robustness examples/robustness/therac/design.yaml
both normal robustness tests/cases/robustness/normal_violation.yaml
both progress robustness tests/cases/fsp/progress.yaml
both env envelope examples/envelope/therac25/therac25_vs_therac20.yaml

/usr/bin/python3 - "$tmp" <<'PY'
import json, re, sys
tmp = sys.argv[1]

def load(name):
    log = json.load(open(f"{tmp}/{name}.sarif"))
    again = json.load(open(f"{tmp}/{name}.again.sarif"))
    run = log["runs"][0]
    for r in run["tool"]["driver"]["rules"]:
        assert r["shortDescription"]["text"] and r["fullDescription"]["text"] and r["help"]["text"], r
    fps = [list(r["partialFingerprints"].values())[0] for r in run["results"]]
    assert len(set(fps)) == len(fps), (name, "duplicate fingerprints")
    assert fps == [list(r["partialFingerprints"].values())[0] for r in again["runs"][0]["results"]], name
    return run, json.load(open(f"{tmp}/{name}.json"))

def line(res, i=0):
    return res["locations"][i]["physicalLocation"]["region"]["startLine"]

def grep_line(path, pattern):
    hits = [i + 1 for i, l in enumerate(open(path)) if re.search(pattern, l)]
    assert len(hits) == 1, (path, pattern, hits)
    return hits[0]

# eventb: the failing required checks, at their events
run, js = load("rodin")
failing = [n for n, c in js["checks"].items()
           if c["holds"] is False and n in ("invariant", "feasibility", "partitioning", "well-definedness")]
assert [r["message"]["text"].split(" ")[0] for r in run["results"]] == failing, (run["results"], failing)
for r in run["results"]:
    ev = re.search(r"\n  event (\w+):", r["message"]["text"])
    if ev:
        assert line(r) == grep_line("tests/models/eventb/rodin_fails.yaml", r"name: %s\b" % ev.group(1)), r
assert js["verdict"] == "violated" and run["invocations"][0]["executionSuccessful"]
run, js = load("eco")
assert [r["ruleId"] for r in run["results"]] == ["ISMV-EVENTB-NO-ROBUSTIFICATION"], run["results"]
unc = grep_line("examples/eventb/heater_eco.yaml", r"^uncertainty:")
assert line(run["results"][0]) > unc, (line(run["results"][0]), unc)
run, js = load("heater")
assert run["results"] == [] and js["verdict"] == "verified"
inv = json.load(open(f"{tmp}/unknown.sarif"))["runs"][0]["invocations"][0]
assert inv["executionSuccessful"] is False and inv["toolExecutionNotifications"][0]["message"]["text"].startswith("inconclusive")

# masking: one result with the play, none when it masks
run, js = load("phils")
assert len(run["results"]) == 1 and js["masks"] is False
steps = run["results"][0]["codeFlows"][0]["threadFlows"][0]["locations"]
assert len(steps) == len(js["trace"]), (len(steps), len(js["trace"]))
for s, t in zip(steps, js["trace"]):
    assert t["action"] is None or t["action"] in s["location"]["message"]["text"], (s, t)
assert line(run["results"][0]) == grep_line("examples/masking/phils2.yaml", r"^implementation:")
run, js = load("raft")
assert run["results"] == [] and js["masks"] is True

# robustness: a result per differing class, the normal violation as an error
for name in ("abp", "therac"):
    run, js = load(name)
    lost = [r for r in run["results"] if r["ruleId"] == "ISMV-ROBUSTNESS-LOST"]
    gained = [r for r in run["results"] if r["ruleId"] == "ISMV-ROBUSTNESS-GAINED"]
    assert len(lost) == js["a_not_b"]["classes"] and len(gained) == js["b_not_a"]["classes"], name
    assert [r["message"]["text"].split("the deviation class of ")[1] for r in lost] == \
        [", ".join(t["trace"]) for t in js["a_not_b"]["traces"]], name
run, js = load("normal")
assert [r["ruleId"] for r in run["results"]] == ["ISMV-ROBUSTNESS-NORMAL-VIOLATION"]
assert run["results"][0]["message"]["text"].endswith(", ".join(js["normal_violation"]))
run, js = load("progress")
violated = [p for p in js["progress"] if not p["holds"]]
res = [r for r in run["results"] if r["ruleId"] == "ISMV-ROBUSTNESS-PROGRESS-VIOLATION"]
assert len(res) == len(violated) == 2 and js["verdict"] == "violated", (res, violated)
for r, p in zip(res, violated):
    assert r["message"]["text"] == "progress %s is violated: %s leads to a terminal set with actions {%s}" % (
        p["name"], ", ".join(p["trace"]), ", ".join(p["terminal_actions"])), (r["message"], p)
    loc = r["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "tests/cases/fsp/progress.lts", loc
    assert line(r) == grep_line("tests/cases/fsp/progress.lts", r"^progress %s =" % p["name"]), (r, p)

# envelope: the comparison's witnesses
run, js = load("env")
want = (["ISMV-ENVELOPE-LOST"] if js["witness"]["main_only"] else []) + \
       (["ISMV-ENVELOPE-GAINED"] if js["witness"]["compare_only"] else [])
assert [r["ruleId"] for r in run["results"]] == want, (run["results"], js["witness"])
for r, side in zip(run["results"], [k for k in ("main_only", "compare_only") if js["witness"][k]]):
    text = "{" + ", ".join(f"({s}, {a}, {d})" for s, a, d in js["witness"][side]) + "}"
    assert text in r["message"]["text"], (text, r["message"]["text"])
print("sarif analyses: eventb, masking, robustness and envelope logs agree with their JSON")
PY
