#!/usr/bin/env bash
# Inputs that used to be quadratic or to write a caret byte by byte (issue
# 11), generated here: each must end with its exit code and an exactly
# located error (line and column computed below from the text written),
# within `timeout 60` (a quadratic run on these sizes takes far longer:
# 10^5 terms, keys or states, a column past 10^7). Not a timing test: the
# limit only turns a hang into a failure.
#   expression  100 000 'or' terms, the unknown name in the last: located
#   and-chain   100 000 'and' terms verified at bound 1 (no deep recursion)
#   keys        a mapping of 100 000 keys, the last a duplicate
#   states      100 000 states, the last a duplicate
#   caret       a duplicate state at column 10^7: the source line is shown
#               around the caret only (stderr under 2 KB), and with strace
#               at hand, in a handful of write calls
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
head = "kind: ism\nvariables: {x: {type: int, init: 0}}\nstates: [A]\ninitial: A\nrules: [{id: r, from: A}]\n"
def write(name, text, line, col):
    open(f"{d}/{name}.yaml", "w").write(text)
    open(f"{d}/{name}.at", "w").write(f"{line}:{col}\n")
# the unknown name y is the last term; its column counted from the line
expr = "failure: \"" + " or ".join(["x > 0"] * 99999) + " or y > 0\"\n"
write("expression", head + expr, 6, expr.index("y") + 1)
write("and-chain", head + "failure: \"" + " and ".join(["x > 0"] * 100000) + "\"\nverify: {bound: 1}\n", 0, 0)
keys = "".join(f"  k{i}: {{type: int, init: 0}}\n" for i in range(100000))
write("keys", "kind: ism\nvariables:\n" + keys + "  k7: {type: int, init: 0}\nstates: [A]\ninitial: A\n"
      "rules: [{id: r, from: A}]\nfailure: \"k0 > 0\"\n", 3 + 100000, 3)
states = "states: [" + ", ".join(f"S{i}" for i in range(100000)) + ", S99]\n"
write("states", "kind: ism\nvariables: {x: {type: int, init: 0}}\n" + states +
      "initial: S0\nrules: [{id: r, from: S0}]\nfailure: \"x > 0\"\n", 3, states.rindex("S99") + 1)
far = "states: [A," + " " * 10000000 + "A]\n"
write("caret", "kind: ism\nvariables: {x: {type: int, init: 0}}\n" + far +
      "initial: A\nrules: [{id: r, from: A}]\nfailure: \"x > 0\"\n", 3, far.rindex("A") + 1)
PY
# expect NAME RC MESSAGE: the run's exit code, and (RC 2) its first
# diagnostic at NAME.yaml:LINE:COL with MESSAGE
expect() {
  local name=$1 rc=$2 msg=$3 got at
  timeout 60 "$ISMV" verify "$tmp/$name.yaml" --probability none >"$tmp/$name.out" 2>"$tmp/$name.err"
  got=$?
  [ "$got" = "$rc" ] || { echo "FAIL: $name: exit $got, expected $rc"; head -c 300 "$tmp/$name.err"; fail=1; return; }
  if [ "$rc" = 2 ]; then
    at=$(cat "$tmp/$name.at")
    head -1 "$tmp/$name.err" | grep -Fq "$name.yaml:$at: error: $msg" || {
      echo "FAIL: $name: expected $name.yaml:$at: error: $msg, got:"
      head -1 "$tmp/$name.err" | cut -c1-300
      fail=1
      return
    }
  fi
  echo "$name: exit $got"
}
expect expression 2 "undefined name 'y'"
expect and-chain 0 ""
grep -q "^model: verified" "$tmp/and-chain.out" || { echo "FAIL: and-chain: not verified"; fail=1; }
expect keys 2 "duplicate key 'k7'"
expect states 2 "duplicate state 'S99'"
expect caret 2 "duplicate state 'A'"
size=$(wc -c <"$tmp/caret.err")
[ "$size" -lt 2048 ] || { echo "FAIL: caret: $size bytes of diagnostics for one error"; fail=1; }
if command -v strace >/dev/null && strace -f -qq -e trace=none true 2>/dev/null; then
  strace -f -qq -e trace=write -o "$tmp/trace" "$ISMV" verify "$tmp/caret.yaml" >/dev/null 2>&1
  writes=$(grep -c 'write(2,' "$tmp/trace")
  [ "$writes" -le 10 ] || { echo "FAIL: caret: the diagnostic took $writes writes"; fail=1; }
  echo "caret: $size bytes in $writes writes"
fi
exit $fail
