#!/usr/bin/env bash
# The pump-2 redesigns (Fortis's fast search and OASIS, examples/robustify/pump2)
# checked by properties through an independent code path: the design
# printed with --format fsp, composed by `ismv robustness` with the
# deviated environment E' (env.lts ‖ power.lts ‖ alarm.lts), satisfies the
# safety property PS (the normal-environment check of robustness exits 0),
# while the original lines.lts under the same E' violates it (exit 10,
# with a trace that dispenses on a line whose rate is not set). Run by
# tests/run.sh (one test); needs ISMV.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ex=$PWD/examples/robustify/pump2

"$ISMV" robustify "$ex/robustify.yaml" --format fsp >"$tmp/design.lts" || { echo "robustify failed"; exit 1; }
check() { # system file, expected exit code
  cat >"$tmp/check.yaml" <<YAML
kind: robustness
system: $1
environment: [$ex/env.lts, $ex/power.lts, $ex/alarm.lts]
property: $ex/p.lts:PS
YAML
  "$ISMV" robustness "$tmp/check.yaml" --print 1 >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" = "$2" ] || { echo "robustness on $1: exit $rc, expected $2"; cat "$tmp/out" "$tmp/err"; exit 1; }
}
check "$tmp/design.lts" 0
grep -q '^violation' "$tmp/out" && { echo "the design violates PS under E'"; cat "$tmp/out"; exit 1; }
check "$ex/lines.lts" 10
grep -q '^violation: the system violates the property under the normal environment' "$tmp/out" ||
  { echo "the original is not reported unsafe under E'"; cat "$tmp/out"; exit 1; }
# OASIS (config-oasis.json): the design is the abstraction that decouples
# turn_off under its supervisor; it too must satisfy PS under E'.
"$ISMV" robustify "$ex/config-oasis.json" --format fsp >"$tmp/design.lts" || { echo "robustify (oasis) failed"; exit 1; }
check "$tmp/design.lts" 0
grep -q '^violation' "$tmp/out" && { echo "the OASIS design violates PS under E'"; cat "$tmp/out"; exit 1; }
echo ok
