#!/usr/bin/env bash
# Depth and overflow in the front ends not covered by the golden cases of
# tests/cases/reliability (YAML, expressions) or by tests/fsp_limits.sh
# (FSP), generated here (issue 11): each input ends with exit 2 and one
# located error (line and column computed from the text written), never a
# stack overflow, a signal or a silent wrap-around, within `timeout 60`.
#   maskd-unary     100 000 unary minus signs in a MaskD initial condition
#   maskd-parens    100 000 nested parentheses there
#   maskd-literal   an integer literal past 32 bits
#   maskd-overflow  an assignment whose value leaves 32 bits (MAX + 1)
#   eofm-deep       an EOFM task model nested 3000 activities deep (libxml2's
#                   own limit, 256, reported as a located error)
#   json-deep       a robustify JSON configuration nested 100 000 deep
#   merge-deep      an `ismv merge` part nested 100 000 deep (the JSON reader)
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
def at(name, line, col):
    open(f"{d}/{name}.at", "w").write(f"{line}:{col}\n")
base = open("examples/masking/nominal/brp/brpN1.test").read()
lines = base.split("\n")
init = next(i for i, l in enumerate(lines) if "Initial:" in l)
def maskd(name, old, new, where, col_of):
    text = base.replace(old, new, 1)
    open(f"{d}/{name}.test", "w").write(text)
    open(f"{d}/{name}.yaml", "w").write(f"kind: masking\nnominal: {name}.test\nimplementation: {name}.test\n")
    line = text.split("\n")[where]
    at(name, where + 1, col_of(line))
# the parser stops at the operand 201 levels deep (its limit is 200)
maskd("maskd-unary", "MAX == 10", "MAX == " + "-" * 100000 + "10", init, lambda l: l.index("-") + 201)
maskd("maskd-parens", "MAX == 10", "MAX == " + "(" * 100000 + "10" + ")" * 100000, init,
      lambda l: l.index("(") + 201)
maskd("maskd-literal", "MAX == 10", "MAX == 9223372036854775807", init, lambda l: l.index("9223") + 1)
# both processes' Initial set the global MAX (the later one wins, docs/masking.md)
assign = next(i for i, l in enumerate(lines) if "rtr = 0, flagK = true" in l)
text = base.replace("MAX == 10", "MAX == 2147483647").replace("rtr = 0, flagK = true", "rtr = MAX + 1, flagK = true", 1)
open(f"{d}/maskd-overflow.test", "w").write(text)
open(f"{d}/maskd-overflow.yaml", "w").write("kind: masking\nnominal: maskd-overflow.test\nimplementation: maskd-overflow.test\n")
at("maskd-overflow", assign + 1, text.split("\n")[assign].index("+ 1") + 1)  # at the operator
# EOFM: the activity chain on one line (line 2); libxml2 stops at depth 257
inner = '<action humanaction="hA"/>'
for i in range(3000):
    inner = f'<activity name="d{i}"><decomposition operator="ord">{inner}</decomposition></activity>'
xml = ('<eofms><userdefinedtype name="TBool">{False, True}</userdefinedtype>\n<humanoperator name="User">'
       '<inputvariable name="iDone" userdefinedtype="TBool"/><humanaction name="hA" behavior="autoreset"/>'
       '<eofm>' + inner + '</eofm></humanoperator></eofms>\n')
open(f"{d}/eofm-deep.xml", "w").write(xml)
open(f"{d}/eofm-deep.yaml", "w").write("kind: robustness\nsystem: sys.lts\nproperty: p.lts\nenvironment:\n"
                                        "  eofm: eofm-deep.xml\n  initial: {iDone: \"False\"}\n")
at("eofm-deep", 2, 0)  # the column is libxml2's: checked to be a number only
cfg = '{"sys": ' + "[" * 100000 + "]" * 100000 + "}\n"
open(f"{d}/json-deep.json", "w").write(cfg)
at("json-deep", 1, cfg.index("[") + 1000)  # the outer mapping is level 1
open(f"{d}/merge-deep.json", "w").write("[" * 100000 + "]" * 100000 + "\n")
at("merge-deep", 1, 257)
PY
echo 'SYS = (hA -> SYS).' >"$tmp/sys.lts"
echo 'property P = (hA -> P).' >"$tmp/p.lts"
# expect NAME FILE MESSAGE ismv-args...: exit 2, the first diagnostic at
# FILE:LINE:COL (COL 0: any column) with MESSAGE
expect() {
  local name=$1 file=$2 msg=$3 got where
  shift 3
  timeout 60 "$ISMV" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  got=$?
  [ "$got" = 2 ] || { echo "FAIL: $name: exit $got, expected 2"; head -c 300 "$tmp/$name.err"; fail=1; return; }
  where=$(cat "$tmp/$name.at")
  if [ "${where#*:}" = 0 ]; then
    head -1 "$tmp/$name.err" | grep -Eq "^$tmp/$file:${where%:*}:[0-9]+: error: $msg" || {
      echo "FAIL: $name: expected $file:${where%:*}:COL: error: $msg, got:"
      head -1 "$tmp/$name.err" | cut -c1-300
      fail=1
      return
    }
  else
    head -1 "$tmp/$name.err" | grep -Fq "$file:$where: error: $msg" || {
      echo "FAIL: $name: expected $file:$where: error: $msg, got:"
      head -1 "$tmp/$name.err" | cut -c1-300
      fail=1
      return
    }
  fi
  echo "$name: exit $got"
}
expect maskd-unary maskd-unary.test "expression nested too deeply" masking "$tmp/maskd-unary.yaml"
expect maskd-parens maskd-parens.test "expression nested too deeply" masking "$tmp/maskd-parens.yaml"
expect maskd-literal maskd-literal.test "integer literal out of range" masking "$tmp/maskd-literal.yaml"
expect maskd-overflow maskd-overflow.test "in an assignment: value outside 32 bits" masking "$tmp/maskd-overflow.yaml"
expect eofm-deep eofm-deep.xml "malformed XML: excessive depth" robustness "$tmp/eofm-deep.yaml"
expect json-deep json-deep.json "YAML nested more than 1000 levels deep" robustify "$tmp/json-deep.json"
expect merge-deep merge-deep.json "nesting deeper than 256 levels" merge "$tmp/merge-deep.json" "$tmp/merge-deep.json"
exit $fail
