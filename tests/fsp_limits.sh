#!/usr/bin/env bash
# The FSP front end on inputs built to break it (generated here, too big to
# keep as files): deep prefix chains compile (a hidden cycle in linear memory); deep nesting of parentheses,
# aliases, unary operators and expressions ends in a located error (exit 2),
# never a stack overflow; growth stops at --max-states (exit 5); a state
# with 200 000 labels composes in linear-logarithmic time. Run by
# tests/run.sh (one test) with ISMV set.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
config() { # config NAME SYSTEM-FILES: a trivial environment and property, so the cost is the front end's
  printf 'kind: robustness\nsystem: %s\nenvironment: other.lts\nproperty: prop.lts\nminimize: false\n' "$2" >"$tmp/$1.yaml"
}
expect() { # expect NAME RC PATTERN [ismv options]: exit code and a line of stdout+stderr
  local name=$1 rc=$2 pattern=$3
  shift 3
  timeout 60 "$ISMV" robustness "$tmp/$name.yaml" --print 0 "$@" >"$tmp/$name.out" 2>&1
  local got=$?
  if [ "$got" != "$rc" ] || ! grep -q -- "$pattern" "$tmp/$name.out"; then
    echo "$name: exit $got (expected $rc), output:" >&2
    head -5 "$tmp/$name.out" >&2
    status=1
  fi
}
python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
w = lambda n, t: open(f"{d}/{n}.lts", "w").write(t)
w("chain", "P = (" + " -> ".join(f"a{i}" for i in range(14000)) + " -> P).\n")
w("nested", "P = " + "(a -> " * 50000 + "STOP" + ")" * 50000 + ".\n")
w("alias", "P = Q0,\n" + ",\n".join(f"Q{i} = Q{i+1}" for i in range(5000)) + ",\nQ5000 = (a -> P).\n")
w("minus", "const N = " + "-" * 100000 + "1\nP = (a[N] -> P).\n")
w("parens", "const N = " + "(" * 50000 + "1" + ")" * 50000 + "\nP = (a[N] -> P).\n")
w("label", "P = (a" + ".b" * 20000 + " -> P).\n")
w("choice", "P = (" + " | ".join(f"a{i} -> P" for i in range(200000)) + ").\n")
w("other", "Q = (b -> Q).\n")
w("prop", "property Q = (b -> Q).\n")
w("grid", "P = (a[i:0..100000][j:0..100000] -> P).\n")
w("copies", "P = (a -> b -> P).\n||S = (p[0..40]:P).\n")
PY
for n in chain nested alias minus parens label grid copies; do config $n "$n.lts"; done
config choice "[choice.lts, other.lts]"
# a hidden cycle through all its states: one τ-closure shared by the cycle's
# component (per state it took 14000² ints, 780 MB; now ~14 MB)
expect chain 0 "system chain.lts: 14000 states, 14000 transitions" --max-memory 200
# the same minimised: the τ-cycle is collapsed to one state before the
# weak-bisimulation saturation (per state it was 14000² pairs, 1.5 GB, 13.7 s)
sed 's/minimize: false/minimize: true/' "$tmp/chain.yaml" >"$tmp/chainmin.yaml"
expect chainmin 0 "weakest assumption (minimised): 1 states, 0 transitions" --max-memory 200
expect nested 2 "nested.lts:1:.*nests more than 1000 levels"
expect alias 2 "alias.lts:.*nests more than 1000 levels"
expect minus 2 "minus.lts:1:.*nests more than 1000 levels"
expect parens 2 "parens.lts:1:.*nests more than 1000 levels"
expect label 2 "label.lts:1:.*nests more than 1000 levels"
expect grid 5 "grid.lts:1:.*too many" --max-states 100000
expect copies 5 "copies.lts:2:.*too many" --max-states 100000
start=$(date +%s%N)
expect choice 0 "system choice.lts, other.lts: 1 states, 200001 transitions"
ms=$((($(date +%s%N) - start) / 1000000))
echo "200000-way choice: $ms ms"
exit $status
