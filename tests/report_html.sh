#!/usr/bin/env bash
# ismv report and --format html on the bundled examples (small bounds):
# every page is well-formed, self-contained and shows every counterexample,
# class, trace, deviation set, move and check of its JSON
# (tests/report_check.py, which reads the JSON with Python's json module);
# the same input gives the same bytes; `verify --format html` is the page
# `report --model` makes from verify's JSON (one renderer); results that are
# no ismv result, or of another model, are located errors (exit 2).
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL $*"; failed=1; }
check() { python3 tests/report_check.py "$@" || fail "report_check $*"; }

# verify (with simulate for the thermostat) and --model: the machine drawn
verify_models=(examples/robotcar/explorer.yaml examples/robotcar/wall-follower.yaml examples/robotcar/cautious.yaml
  examples/thermostat/thermostat.yaml examples/cruise/cruise.yaml examples/drone/drone.yaml)
for m in "${verify_models[@]}"; do
  n=$(basename "$m" .yaml)
  timeout 120 "$ISMV" verify "$m" --bound 3 --format json -o "$tmp/$n.json" 2>/dev/null
  rc=$?
  [ $rc = 0 ] || [ $rc = 10 ] || fail "verify $m: exit $rc"
done
timeout 120 "$ISMV" simulate examples/thermostat/thermostat.yaml --bound 3 --runs 2000 --format json \
  -o "$tmp/thermostat-sim.json" 2>/dev/null || fail "simulate thermostat: exit $?"
for m in "${verify_models[@]}"; do
  n=$(basename "$m" .yaml)
  extra=()
  [ "$n" = thermostat ] && extra=("$tmp/thermostat-sim.json")
  "$ISMV" report "$tmp/$n.json" "${extra[@]}" --model "$m" -o "$tmp/$n.html" || fail "report $n: exit $?"
  check --drawn "$tmp/$n.html" "$tmp/$n.json" "${extra[@]}"
done
# without --model: no drawing, the same tables
"$ISMV" report "$tmp/explorer.json" -o "$tmp/explorer-plain.html" || fail "report explorer without --model"
check "$tmp/explorer-plain.html" "$tmp/explorer.json"
grep -q 'id="r1-machine"' "$tmp/explorer-plain.html" && fail "a drawing without --model"

# one renderer: verify --format html == report --model of verify's JSON, but
# for where the JSON came from (the nav entry and the section's "from" line)
timeout 120 "$ISMV" verify examples/robotcar/explorer.yaml --bound 3 --format html -o "$tmp/direct.html" 2>/dev/null
[ $? = 10 ] || fail "verify --format html: exit code"
python3 - "$tmp/direct.html" "$tmp/explorer.html" "$tmp/explorer.json" <<'EOF' || fail "verify --format html differs from report"
import re, sys
src = sys.argv[3]
direct, via = [open(p).read() for p in sys.argv[1:3]]
via = via.replace(" (%s)</li>" % src, "</li>").replace('<p class="meta">from %s</p>' % src, '<p class="meta"></p>')
via = via.replace('<p class="meta">from %s; written by ' % src, '<p class="meta">written by ')
if direct != via:
    a, b = direct.splitlines(), via.splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            print("line %d:\n  %s\n  %s" % (i + 1, x[:200], y[:200]))
            break
    sys.exit(1)
EOF

# the LTS analyses and Event-B: the bundled configs but the slowest
i=0
jsons=()
declare -A direct_done
for f in examples/robustness/*/*.yaml examples/envelope/*/*.yaml examples/eventb/heater.yaml examples/eventb/heater_eco.yaml \
  examples/masking/brp-n1-m1.yaml examples/masking/raft1.yaml examples/masking/phils2.yaml examples/masking/vending.yaml; do
  case $f in */eofm_strong_p.yaml | */coffee_robust.yaml) continue ;; esac # the slow ones
  kind=$(sed -n 's/^kind: *\([a-z]*\).*/\1/p' "$f" | head -1)
  case $kind in robustness | envelope | masking | eventb) ;; *) continue ;; esac
  i=$((i + 1))
  timeout 60 "$ISMV" "$kind" "$f" --format json -o "$tmp/lts$i.json" 2>/dev/null
  rc=$?
  if [ $rc != 0 ] && [ $rc != 10 ]; then fail "$kind $f: exit $rc"; continue; fi
  "$ISMV" report "$tmp/lts$i.json" -o "$tmp/lts$i.html" || fail "report $f"
  check "$tmp/lts$i.html" "$tmp/lts$i.json"
  if [ "$kind" = envelope ]; then # the page's counts against the text report's
    timeout 60 "$ISMV" envelope "$f" 2>/dev/null | sed -n 's/^d\([0-9]*\) (\([0-9]*\) transitions, \([0-9]*\) deviations).*/d\1: \2 transitions, \3 deviations/p' >"$tmp/want"
    grep -o '<h4 class="delta" id="r1-delta-[0-9]*">[^<]*' "$tmp/lts$i.html" | sed 's/.*>//' >"$tmp/got"
    [ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got" || fail "envelope $f: the page's d counts differ from the text report's"
  fi
  if [ -z "${direct_done[$kind]:-}" ]; then # --format html: once per analysis
    direct_done[$kind]=1
    timeout 60 "$ISMV" "$kind" "$f" --format html -o "$tmp/lts$i-direct.html" 2>/dev/null
    check "$tmp/lts$i-direct.html" "$tmp/lts$i.json"
  fi
  jsons+=("$tmp/lts$i.json")
done
[ $i -ge 25 ] || fail "only $i configs found"
# all of them on one page, twice: the same bytes
"$ISMV" report "${jsons[@]}" "$tmp/explorer.json" -o "$tmp/all.html" || fail "report of all"
check "$tmp/all.html" "${jsons[@]}" "$tmp/explorer.json"
"$ISMV" report "${jsons[@]}" "$tmp/explorer.json" -o "$tmp/all2.html"
cmp -s "$tmp/all.html" "$tmp/all2.html" || fail "two runs, two pages"

# escaping: hostile names in the JSON (HTML in a model name, rule, condition and labels,
# quotes and backslashes that DOT must escape too) stay text
python3 - "$tmp/explorer.json" "$tmp/lts1.json" "$tmp/evil-v.json" "$tmp/evil-r.json" <<'EOF'
import json, sys
evil = '<script>alert("x")</script> & \' " \\ ]]> <!-- -->'
v = json.load(open(sys.argv[1]))
v["model"] = evil
v["classes"][0]["condition"] = evil
v["counterexamples"][0]["path"][0] = evil
json.dump(v, open(sys.argv[3], "w"))
r = json.load(open(sys.argv[2]))
r["traces"][0]["trace"][0] = evil
r["weakest_assumption_lts"]["transitions"][0][1] = evil
json.dump(r, open(sys.argv[4], "w"))
EOF
"$ISMV" report "$tmp/evil-v.json" "$tmp/evil-r.json" -o "$tmp/evil.html" || fail "report of hostile names"
check "$tmp/evil.html" "$tmp/evil-v.json" "$tmp/evil-r.json"
[ "$(grep -c '<script' "$tmp/evil.html")" = 1 ] || fail "a name became a script element"

# Event-B's compartment picture: drawn in the page from the JSON's rows and
# intervals, it is the picture `eventb --svg` draws from the analysis itself
# (the same drawing code, so this checks the JSON's data: exact ends, kinds,
# closedness), on every bundled model that has one
pictures=0
for m in examples/eventb/*.yaml; do
  rm -f "$tmp/pic.svg"
  timeout 120 "$ISMV" eventb "$m" --svg "$tmp/pic.svg" -f html -o "$tmp/pic.html" >/dev/null 2>&1
  [ -s "$tmp/pic.svg" ] || continue
  pictures=$((pictures + 1))
  python3 - "$tmp/pic.svg" "$tmp/pic.html" <<'EOF2' || fail "$m: the page's compartment picture differs from eventb --svg"
import re, sys
svg, page = [open(p).read() for p in sys.argv[1:]]
m = re.search(r'<figure class="compartments">\n(.*?)</figure>', page, re.S)
assert m, "no compartment figure in the page"
want = re.sub(r' xmlns="[^"]*"', "", svg, count=1)
assert m.group(1) == want, (m.group(1)[:300], want[:300])
EOF2
done
[ $pictures -ge 1 ] || fail "no bundled Event-B model draws a compartment picture"

# errors: located, exit 2
printf '{"answer": 42}\n' >"$tmp/other.json"
"$ISMV" report "$tmp/other.json" -o "$tmp/x.html" 2>"$tmp/err"
[ $? = 2 ] && grep -q "other.json:1:1: error: not a result of ismv" "$tmp/err" || fail "unknown JSON: $(cat "$tmp/err")"
printf '{"model": "x",\n "verdict": }\n' >"$tmp/bad.json"
"$ISMV" report "$tmp/bad.json" 2>"$tmp/err" >/dev/null
[ $? = 2 ] && grep -q "bad.json:2:13: error: expected a value, found '}'" "$tmp/err" || fail "malformed JSON: $(cat "$tmp/err")"
"$ISMV" report "$tmp/explorer.json" --model examples/thermostat/thermostat.yaml 2>"$tmp/err" >/dev/null
[ $? = 2 ] && grep -qE "explorer.json:[0-9]+:12: error: this result is of model" "$tmp/err" || fail "other model: $(cat "$tmp/err")"
[ -e "$tmp/x.html" ] && fail "a page written after an error"

[ $failed = 0 ] && echo "ok: $i LTS/Event-B configs, ${#verify_models[@]} ISM models and $pictures compartment pictures, pages checked"
exit $failed
