#!/usr/bin/env bash
# `ismv eventb --write-model`: the robustified model of every bundled and test
# model with an uncertainty loads again and passes its invariant, feasibility
# and partitioning checks (exit 0); a model that fails its own checks is refused
# (exit 10, the failing check named, no file written).
set -u
cd "$(dirname "$0")/.."
: "${ISMV:=build/release/ismv}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
check() { # MODEL [OPTIONS...]
  local model=$1 out="$tmp/$(basename "$1")"
  shift
  "$ISMV" eventb "$model" "$@" --write-model "$out" >"$tmp/log" 2>&1
  local rc=$?
  if [ $rc != 0 ] || [ ! -s "$out" ]; then
    echo "FAIL $model $*: exit $rc, no written model"; tail -3 "$tmp/log"; failed=1; return
  fi
  if ! "$ISMV" eventb "$out" >"$tmp/log2" 2>&1; then
    echo "FAIL $model $*: the written model does not pass its checks"; grep -v holds "$tmp/log2" | head -5; failed=1; return
  fi
  echo "ok $model $*: $(grep -c 'holds' "$tmp/log2") checks hold on the written model"
}
check examples/eventb/heater.yaml
check examples/eventb/heater.yaml --robustify repurposing
check examples/eventb/heater_eco.yaml
check examples/eventb/heater_eco_param.yaml --max-error D --robustify preserving
check examples/eventb/heater_eco_param.yaml --max-error D --robustify repurposing
check examples/eventb/heater_param.yaml --max-error D --robustify preserving
check tests/cases/eventb/expect_case_study.yaml
check tests/models/eventb/eco_real.yaml --max-error D --robustify repurposing
check tests/models/eventb/split_real.yaml --max-error D --robustify preserving
check tests/models/eventb/split_int.yaml --max-error D
check tests/models/eventb/split_strict.yaml --max-error D --robustify preserving
check tests/models/eventb/tank_real.yaml --max-error D --robustify preserving

# A model failing its partitioning check is refused and nothing is written.
"$ISMV" eventb tests/models/eventb/overlap.yaml --write-model "$tmp/overlap.yaml" >"$tmp/log" 2>"$tmp/err"
rc=$?
want="ismv: error: no model written to '$tmp/overlap.yaml': the original model fails its partitioning check"
if [ $rc != 10 ] || [ -e "$tmp/overlap.yaml" ] || [ "$(cat "$tmp/err")" != "$want" ] ||
  ! grep -q '^robustification: refused: the model fails its partitioning check' "$tmp/log"; then
  echo "FAIL overlap.yaml: exit $rc, stderr: $(cat "$tmp/err")"; failed=1
else
  echo "ok overlap.yaml refused (exit 10, nothing written)"
fi
# The compartment picture is a well-formed SVG document with a row per
# original event, robustified event and the theorem condition (3 + 5 + 1 for the heater).
"$ISMV" eventb examples/eventb/heater.yaml --svg "$tmp/heater.svg" >/dev/null 2>&1
rows=$(python3 -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
print(sum(1 for t in r.iter("{http://www.w3.org/2000/svg}text") if t.get("text-anchor") == "end"))' "$tmp/heater.svg" 2>&1)
if [ "$rows" = 9 ]; then echo "ok heater.svg: 9 rows"; else echo "FAIL heater.svg: $rows"; failed=1; fi
exit $failed
