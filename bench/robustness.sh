#!/usr/bin/env bash
# Benchmark (not a test): our time for the FSE'20 cases beside the times the
# paper's tool reports (LTSA-Robust on the authors' machine).
set -u
cd "$(dirname "$0")/.."
ISMV=${ISMV:-build/release/ismv}
run() { # name, config, extra args, reference
  local start end
  start=$(date +%s%N)
  for _ in 1 2 3 4 5; do "$ISMV" robustness "$2" $3 >/dev/null 2>&1; done
  end=$(date +%s%N)
  printf '%-40s %8.1f ms   (reference: %s)\n' "$1" "$(awk "BEGIN{print ($end - $start) / 5000000}")" "$4"
}
run "naive protocol (Δ + explanations)" examples/robustness/abp/naive.yaml "" "130 ms"
run "ABP (Δ + explanations)" examples/robustness/abp/abp.yaml "" "1.3 s"
run "Therac design comparison" examples/robustness/therac/design.yaml "" "958 ms"
run "Therac property comparison" examples/robustness/therac/property.yaml "" "2.1 s"

# Fortis' thesis problems (examples/robustness/fortis, as shipped) and two
# larger members of its families generated here: oyster-12 (MAX_BAL = 12,
# 3 718 classes, explanations for all) and pump-5 (five lines). One run
# each under GNU time: wall and CPU (user+sys) seconds and peak RSS, 120 s
# budget (exit 124). Issue 12's targets for oyster-12 and pump-5 are 10 s
# and 500 MB each; the last column says whether a run met them (by CPU
# time: wall time on the shared machine measures its load as much as us).
TIME=/usr/bin/time
TARGET_S=10
TARGET_MB=500
one() { # name, config, extra args, with_target
  local out wall cpu kb rc verdict=""
  out=$($TIME -f '%e %U %S %M %x' timeout 120 "$ISMV" robustness "$2" --print 0 $3 2>&1 >/dev/null | tail -1)
  read -r wall u s kb rc <<<"$out"
  cpu=$(awk "BEGIN{print $u + $s}")
  if [ "${4:-}" = target ]; then
    if [ "$rc" = 124 ]; then
      verdict="   target ${TARGET_S} s / ${TARGET_MB} MB: missed (not finished in 120 s)"
    elif awk "BEGIN{exit !($cpu <= $TARGET_S && $kb / 1024 <= $TARGET_MB)}"; then
      verdict="   target ${TARGET_S} s / ${TARGET_MB} MB: met"
    else
      verdict="   target ${TARGET_S} s / ${TARGET_MB} MB: missed"
    fi
  fi
  printf '%-34s %7.2f s wall %7.2f s cpu %8.1f MB  exit %s%s\n' "$1" "$wall" "$cpu" "$(awk "BEGIN{print $kb / 1024}")" \
    "$rc" "$verdict"
}
for f in abp/naive abp/abp therac25/therac25 voting/voting voting2-4-4/voting pump/pump pump2/pump pump3/pump \
  oyster-1/oyster oyster-5/oyster; do
  one "fortis $f" "examples/robustness/fortis/$f.yaml" ""
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
F=examples/robustness/fortis
for f in gate-in gate-out human human-dev no-collision; do cp "$F/oyster/$f.lts" "$tmp/"; done
for f in card-bal oyster-bal; do sed 's/MAX_BAL = 1$/MAX_BAL = 12/' "$F/oyster-1/$f.lts" >"$tmp/$f.lts"; done
printf 'kind: robustness\nsystem: [gate-in.lts, gate-out.lts, card-bal.lts, oyster-bal.lts]\nenvironment: human.lts\nproperty: no-collision.lts\ndeviation: human-dev.lts\nfaults: [fg, rmb]\nminimize: false\n' >"$tmp/oyster12.yaml"
one "oyster-12 (Δ + explanations)" "$tmp/oyster12.yaml" "" target
for f in lines power alarm env0 p; do sed 's/= 1\.\.3/= 1..5/' "$F/pump3/$f.lts" >"$tmp/pump5_$f.lts"; done
printf 'kind: robustness\nsystem: [pump5_lines.lts, pump5_power.lts, pump5_alarm.lts]\nenvironment: pump5_env0.lts\nproperty: pump5_p.lts\nminimize: false\n' >"$tmp/pump5.yaml"
one "pump-5 (Δ)" "$tmp/pump5.yaml" "--max-states 100000000" target
