#!/usr/bin/env bash
# Every command's JSON validates against docs/ismv.schema.json (python's
# jsonschema, Debian python3-jsonschema, run by /usr/bin/python3 since a pyenv
# python may shadow it): every golden JSON in tests/cases, and a fresh run of
# each command (two of them inconclusive), whose envelope must also name the
# command and input and state the exit code the process really exited with,
# and a run of each command stopped by --timeout on an input that takes
# minutes (tests/lib/long_runs.sh): its envelope must say "partial": true
# with a reason, never verified, and state the real exit code (5; verify's
# and check's runs too, robustify's --max-states bound as its golden case).
# Mutations of a valid report (a key of the envelope or of the analysis gone,
# a wrong verdict word, a malformed compartment interval of eventb) must be
# rejected, so the schema is not vacuous.
set -euo pipefail
cd "$(dirname "$0")/.."
py=/usr/bin/python3
if ! "$py" -c 'import jsonschema' 2>/dev/null; then
  echo "python3-jsonschema missing: run ./setup.sh --deps"
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
run() { # COMMAND FILE ARGS...: run ismv COMMAND FILE ARGS -f json, keep stdout and the exit code
  local cmd=$1 file=$2 rc=0
  shift 2
  n=$((n + 1))
  "$ISMV" "$cmd" "$file" "$@" -f json >"$tmp/$n.json" 2>/dev/null || rc=$?
  printf '%s\t%s\t%s\n' "$cmd" "$file" "$rc" >"$tmp/$n.meta"
}
run verify examples/robotcar/explorer.yaml --bound 2
run verify examples/robotcar/explorer.yaml --bound 2 --all
run verify examples/robotcar/wall-follower.yaml --bound 12 --mode ideal --budget 0.2 --probability none
run verify tests/models/verify/explorer-b1-ideal.yaml
run simulate tests/cases/probability/corridor.yaml --runs 200
run robustness examples/robustness/abp/abp.yaml
run envelope examples/envelope/therac25/therac25_vs_therac20.yaml
run robustify examples/robustify/pump/config-fast.json
run masking examples/masking/phils2.yaml
run eventb examples/eventb/heater.yaml
run eventb examples/eventb/heater.yaml --rlimit 1
run check tests/models/verify/explorer-b1-ideal.yaml tests/models/verify/errors/expect-fails.yaml
fresh=$n
# partial runs, stopped by the time limit: started together (each ends about
# a second after it starts, whatever the load; `timeout 60` in case it does not)
. tests/lib/long_runs.sh
long_runs_setup "$tmp"
partial() { # COMMAND FILE ARGS...: as run, in the background, with --timeout 1
  local cmd=$1 file=$2 i
  shift 2
  n=$((n + 1))
  i=$n
  {
    rc=0
    timeout 60 "$ISMV" "$cmd" "$file" "$@" --timeout 1 -f json >"$tmp/$i.json" 2>/dev/null || rc=$?
    printf '%s\t%s\t%s\n' "$cmd" "$file" "$rc" >"$tmp/$i.meta"
  } &
}
partial verify "$tmp/wf.yaml" --probability none
partial verify "$tmp/wf.yaml" --probability none --all # streamed: the envelope's tail comes last
partial simulate tests/cases/probability/corridor.yaml --runs 100000000
partial robustness "$tmp/r.yaml" --max-states 100000000
partial envelope "$tmp/ring.yaml"
partial masking "$tmp/m.yaml" --weak false
partial eventb "$tmp/fermat.yaml"
partial check "$tmp/wf.yaml"
wait

"$py" - "$tmp" "$n" "$fresh" <<'PY'
import copy, glob, json, os, shlex, sys
import jsonschema
tmp, n, fresh = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
schema = json.load(open("docs/ismv.schema.json"))
jsonschema.Draft202012Validator.check_schema(schema)
val = jsonschema.Draft202012Validator(schema)

def check(name, doc):
    errs = sorted(val.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errs:
        for e in errs[:5]:
            print(f"{name}: {'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")
        sys.exit(1)

goldens = 0
for cmd in sorted(glob.glob("tests/cases/**/*.cmd", recursive=True)):
    args = shlex.split(open(cmd).read())
    if not any(a == "json" and p in ("-f", "--format") for p, a in zip(args, args[1:])):
        continue
    out = cmd[:-4] + ".out"
    if not os.path.exists(out) or os.path.getsize(out) == 0:
        continue  # the command failed before writing a report (a usage or model error)
    doc = json.load(open(out))
    check(out, doc)
    assert doc["command"] == args[0], (out, doc["command"])
    rc = int(open(cmd[:-4] + ".rc").read()) if os.path.exists(cmd[:-4] + ".rc") else 0
    assert doc["exit_code"] == rc, (out, doc["exit_code"], rc)
    goldens += 1
assert goldens >= 20, goldens

seen, partials = {}, set()
for i in range(1, n + 1):
    command, file, rc = open(f"{tmp}/{i}.meta").read().rstrip("\n").split("\t")
    doc = json.load(open(f"{tmp}/{i}.json"))
    check(f"fresh run {i} ({command} {file})", doc)
    assert doc["command"] == command, (i, doc["command"])
    assert doc["input"] == file or doc["input"][0] == file, (i, doc["input"])
    assert doc["exit_code"] == int(rc), (i, command, doc["exit_code"], rc)
    if i > fresh:  # stopped by --timeout: partial, with a reason, never clean
        assert doc["partial"] is True and doc["reason"], (command, doc.get("partial"), doc.get("reason"))
        assert doc["exit_code"] == 5 and doc["verdict"] != "verified", (command, doc["verdict"], doc["exit_code"])
        assert command == "check" or "time limit" in doc["reason"], (command, doc["reason"])
        partials.add(command)
        continue
    seen.setdefault(command, []).append((doc["verdict"], doc["exit_code"]))
assert sorted(seen) == sorted(["verify", "simulate", "robustness", "envelope", "robustify", "masking",
                               "eventb", "check"]), seen
assert sorted(partials) == sorted(["verify", "simulate", "robustness", "envelope", "masking", "eventb",
                                   "check"]), partials
# the inconclusive runs say so, with exit code 5
assert ("inconclusive", 5) in seen["verify"] and ("inconclusive", 5) in seen["eventb"], seen
assert ("violated", 10) in seen["verify"], seen

base = json.load(open(f"{tmp}/1.json"))
for what, mutate in [
    ("no exit_code", lambda d: d.pop("exit_code")),
    ("no tool", lambda d: d.pop("tool")),
    ("schema 2", lambda d: d.update(schema=2)),
    ("verdict 'failed'", lambda d: d.update(verdict="failed")),
    ("no partial", lambda d: d.pop("partial")),
    ("partial without a reason", lambda d: d.update(partial=True)),
    ("a reason but not partial", lambda d: d.update(reason="why")),
    ("inconclusive but not partial", lambda d: d.update(verdict="inconclusive")),
    ("verify without stats", lambda d: d.pop("stats")),
    ("a class without its rule", lambda d: d["classes"][0].pop("rule")),
    ("a probability above 1", lambda d: d["counterexamples"][0].update(probability=1.5)),
]:
    d = copy.deepcopy(base)
    mutate(d)
    assert not val.is_valid(d), f"the schema accepts a report with {what}"
# eventb's compartment picture (run 10: the heater, one uncertain int variable)
heater = json.load(open(f"{tmp}/10.json"))
assert heater["picture"]["integer"] is True and len(heater["picture"]["rows"]) == 9, heater.get("picture")
for what, mutate in [
    ("a picture row without intervals", lambda d: d["picture"]["rows"][0].pop("intervals")),
    ("an interval end as a number", lambda d: d["picture"]["rows"][3]["intervals"][0].update(hi=26)),
    ("an interval end that is no rational", lambda d: d["picture"]["rows"][3]["intervals"][0].update(hi="26.5")),
]:
    d = copy.deepcopy(heater)
    mutate(d)
    assert not val.is_valid(d), f"the schema accepts a report with {what}"
print(f"json schema: {goldens} golden reports, {fresh} fresh runs and {n - fresh} partial ones valid; "
      "14 broken reports rejected")
PY
