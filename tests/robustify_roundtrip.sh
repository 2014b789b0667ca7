#!/usr/bin/env bash
# Round trip of `ismv robustify` through `ismv robustness`: the design
# printed with --format fsp must load as an FSP system, and the robustness
# analysis (an independent code path: weakest assumptions, not supervisory
# synthesis) must show that it tolerates, against the normative
# environment, everything the original does plus the Therac-25 deviation
# "x, up, e, enter, b" (the operator's fast edit) that made the original
# unsafe. Run by tests/run.sh (one test); needs ISMV.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ex=$PWD/examples/robustify/therac25

"$ISMV" robustify "$ex/robustify.yaml" --format fsp >"$tmp/design.lts" || { echo "robustify failed"; exit 1; }
cat >"$tmp/compare.yaml" <<YAML
kind: robustness
system: $tmp/design.lts
environment: $ex/env0.lts
property: $ex/p_prop.lts
compare: {system: $ex/sys.lts}
expect: {a_not_b: 1, b_not_a: 0, more_robust: false}
YAML
"$ISMV" robustness "$tmp/compare.yaml" >"$tmp/out" 2>"$tmp/err" || { echo "robustness on the design failed"; cat "$tmp/out" "$tmp/err"; exit 1; }
grep -q "^  trace 1: x, up, e, enter, b$" "$tmp/out" || { echo "the design does not tolerate x, up, e, enter, b"; cat "$tmp/out"; exit 1; }
echo ok
