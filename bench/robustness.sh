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
