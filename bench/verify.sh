#!/usr/bin/env bash
# Benchmark of `ismv verify` (not a test): both strategies on the bundled
# robot-car apps at bounds 4..10, printing time, solver checks and the
# ratio per-path / incremental. A run that exceeds its budget (BUDGET
# seconds for incremental, PP_BUDGET for per-path; default 60 each) is
# printed as ">BUDGET"; a bound whose incremental run did not finish ends
# that app's rows. Times are the exploration's (no ranking).
#   ISMV=build/release/ismv bash bench/verify.sh [BOUNDS...]
set -u
cd "$(dirname "$0")/.."
ISMV=${ISMV:-build/release/ismv}
BUDGET=${BUDGET:-60}
PP_BUDGET=${PP_BUDGET:-$BUDGET}
bounds=${*:-4 5 6 7 8 9 10}
printf '%-14s %5s %12s %10s %12s %10s %8s\n' app bound incr_s incr_checks perpath_s pp_checks ratio
run() { # model bound strategy budget -> "ok|timeout seconds checks"
  local out
  out=$("$ISMV" verify "$1" --bound "$2" --strategy "$3" --budget "$4" --probability none --format json --stats 2>/dev/null)
  python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
s = d["stats"]
print("%s %.3f %d" % ("ok" if s["complete"] else "timeout", s["seconds"], s["solver_checks"]))' <<<"$out"
}
for model in examples/robotcar/*.yaml; do
  app=$(basename "$model" .yaml)
  for k in $bounds; do
    read -r st1 t1 c1 < <(run "$model" "$k" incremental "$BUDGET")
    if [ "$st1" = timeout ]; then
      printf '%-14s %5s %12s %10s %12s %10s %8s\n' "$app" "$k" ">$BUDGET" "$c1" "-" "-" "-"
      break
    fi
    read -r st2 t2 c2 < <(run "$model" "$k" per-path "$PP_BUDGET")
    if [ "$st2" = timeout ]; then
      ratio=$(python3 -c "print('>%.1fx' % ($PP_BUDGET / max($t1, 1e-3)))")
      printf '%-14s %5s %12s %10s %12s %10s %8s\n' "$app" "$k" "$t1" "$c1" ">$PP_BUDGET" "$c2" "$ratio"
    else
      ratio=$(python3 -c "print('%.1fx' % ($t2 / max($t1, 1e-3)))")
      printf '%-14s %5s %12s %10s %12s %10s %8s\n' "$app" "$k" "$t1" "$c1" "$t2" "$c2" "$ratio"
    fi
  done
done
