#!/usr/bin/env bash
# The EOFM robustness problems against the reference tool's answer keys
# (LTSA-Robust v1.1 run with -v, ../shared/anchors/lts/LTSA-Robust/_derived/),
# from our YAML configs and from the reference tool's own JSON configs:
# sizes of the translated task model, the concise environment and the
# weakest assumption, the number of classes and the lengths of their
# representative traces, the groups of traces by the set of generated errors
# in their explanation, and that set for every representative trace both
# tools chose (order-insensitive; among equally short traces the BFS
# tie-breaks of LTSA and ismv may pick different interleavings). Skipped (passes)
# when ../shared is not next to the clone. Run by tests/run.sh (one test).
set -u
cd "$(dirname "$0")/.."
keys=../shared/anchors/lts/LTSA-Robust/_derived
[ -d "$keys" ] || { echo "no answer keys at $keys: skipped"; exit 0; }
status=0
check() { # config answer-key
  "$ISMV" robustness "$1" --format json >"$tmp/out.json" 2>"$tmp/err" || true
  if ! python3 - "$tmp/out.json" "$keys/$2" <<'EOF'; then
import json, re, sys
ours = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
ok = True
def same(what, a, b):
    global ok
    if a != b:
        print(f"{sys.argv[2]}: {what}: reference {b}, ours {a}")
        ok = False
m = re.search(r"Translated EOFM LTS: (\d+) states and (\d+) transitions", text)
tm = ours["environment"]["task_model"]
same("translated task model", (tm["states"], tm["transitions"]), (int(m[1]), int(m[2])))
m = re.search(r"Environment LTS: (\d+) states and (\d+) transitions", text)
same("concise environment", (ours["environment"]["states"], ours["environment"]["transitions"]), (int(m[1]), int(m[2])))
wa = re.search(r"Generated Weakest Assumption:\n(.*?)\n\n", text, re.S)[1]
states = len(re.findall(r"^WA\w* =", wa, re.M)) + (1 if "END" in wa else 0)
same("weakest assumption states", ours["weakest_assumption"]["states"], states)
same("weakest assumption transitions", ours["weakest_assumption"]["transitions"], wa.count("->"))
ref = {}
for block in re.split(r"\nMatching the Representative Trace No\.\d+ ", text)[1:]:
    trace = tuple(re.match(r"'\[(.*?)\]'", block)[1].split(", "))
    events = re.findall(r"^\t(\S+)$", block.split("\n\n")[0], re.M)
    ref[trace] = sorted({e for e in events if re.match(r"(omission|commission|repetition)_", e)})
got = {tuple(t["trace"]): sorted(t["faults"]) for t in ours["traces"]}
same("classes", len(got), len(ref))
same("trace lengths", sorted(map(len, got)), sorted(map(len, ref)))
groups = lambda d: sorted(",".join(f) for f in d.values())
same("groups by errors", groups(got), groups(ref))
shared = [t for t in sorted(ref) if t in got]
if len(shared) * 2 < len(ref):
    print(f"{sys.argv[2]}: only {len(shared)} of {len(ref)} representative traces are the same")
    ok = False
for t in shared:
    same(f"errors explaining {', '.join(t)}", got[t], ref[t])
sys.exit(0 if ok else 1)
EOF
    echo "$1 differs from $2" >&2
    cat "$tmp/err" >&2
    status=1
  fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check examples/robustness/therac/eofm.yaml therac_tool_output_verbose.txt
check examples/robustness/therac/eofm_strong_p.yaml therac_strong_p_tool_output_verbose.txt
check examples/robustness/therac/eofm_redesign.yaml therac_robust_tool_output_verbose.txt
check examples/robustness/coffee/coffee.yaml coffee_tool_output_verbose.txt
check examples/robustness/coffee/coffee_robust.yaml coffee_robust_tool_output_verbose.txt
# the reference tool's own JSON configs, run as shipped
models=../shared/anchors/lts/LTSA-Robust/robustness-calculator/src/main/resources/models
check $models/therac25/therac.json therac_tool_output_verbose.txt
check $models/therac25/therac_strong_p.json therac_strong_p_tool_output_verbose.txt
check $models/therac25/therac_robust.json therac_robust_tool_output_verbose.txt
check $models/coffee/coffee.json coffee_tool_output_verbose.txt
check $models/coffee/coffee_robust.json coffee_robust_tool_output_verbose.txt
exit $status
