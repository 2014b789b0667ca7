#!/usr/bin/env bash
# Every SARIF ismv writes (check, verify, eventb, masking, robustness,
# envelope; complete runs, and runs stopped by --timeout) passes Microsoft's SARIF Multitool with its SARIF and
# GitHub rules (`validate --rule-kind "Gh;Sarif"`): zero errors. The tool comes
# from npm via ./setup.sh --deps into .tools/; without node on the machine the
# test says so and passes, with node but without the tool it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
mt=.tools/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
if [ ! -x "$mt" ]; then
  if command -v node >/dev/null; then echo "SARIF Multitool missing: run ./setup.sh --deps"; exit 1; fi
  echo "skipped: no node on this machine (the SARIF Multitool needs npm)"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
produce() { # NAME ARGS...: run ismv with ARGS (or ARGS itself when it starts with timeout), keep its stdout
  local name=$1; shift
  [ "$1" = timeout ] || set -- "$ISMV" "$@"
  "$@" >"$tmp/$name.sarif" 2>/dev/null || true
}
produce check-mixed check -f sarif tests/models/verify/explorer-b1-ideal.yaml tests/models/verify/errors/expect-fails.yaml \
  tests/models/verify/errors/duplicate-key.yaml
produce check-clean check -f sarif tests/models/verify/explorer-b1-ideal.yaml
produce verify-b4 verify examples/robotcar/explorer.yaml --bound 4 -f sarif
produce verify-min-prob verify examples/robotcar/explorer.yaml --bound 4 --min-prob 0.01 -f sarif
produce verify-clean verify tests/models/verify/explorer-r0-ideal.yaml -f sarif
produce eventb-fails eventb tests/models/eventb/rodin_fails.yaml -f sarif
produce eventb-no-robust eventb examples/eventb/heater_eco.yaml --robustify preserving -f sarif
produce eventb-unknown eventb examples/eventb/heater.yaml --rlimit 1 -f sarif
produce masking-play masking examples/masking/phils2.yaml -f sarif
produce robustness-compare robustness examples/robustness/abp/compare.yaml -f sarif
produce robustness-normal robustness tests/cases/robustness/normal_violation.yaml -f sarif
produce envelope-compare envelope examples/envelope/therac25/therac25_vs_therac20.yaml -f sarif
produce verify-inconclusive verify examples/robotcar/wall-follower.yaml --bound 12 --mode ideal --budget 0.2 \
  --probability none -f sarif
produce robustness-progress robustness tests/cases/fsp/progress.yaml -f sarif
# runs stopped by the time limit: one with a partial result, one with none
. tests/lib/long_runs.sh
long_runs_setup "$tmp"
produce envelope-stopped timeout 60 "$ISMV" envelope "$tmp/ring.yaml" --timeout 1 -f sarif
produce robustness-stopped timeout 60 "$ISMV" robustness "$tmp/r.yaml" --max-states 100000000 --timeout 1 -f sarif
# one Multitool run over every log (its start-up dominates); each problem line names its file
files=("$tmp"/*.sarif)
"$mt" validate --rule-kind "Gh;Sarif" -o "$tmp/validated.json" "${files[@]}" >"$tmp/log" 2>&1 || true
if grep -q ': error ' "$tmp/log" || ! grep -q "Done. ${#files[@]} files scanned." "$tmp/log" ||
  ! grep -q 'Analysis completed successfully' "$tmp/log"; then
  grep -E ': error |rror|scanned' "$tmp/log" | head -20
  exit 1
fi
echo "sarif: ${#files[@]} files valid"
