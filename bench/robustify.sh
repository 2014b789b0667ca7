#!/usr/bin/env bash
# Benchmark (not a test): `ismv robustify` on Fortis's thesis examples, CPU
# time (user + system: the figure to read on a shared machine; wall time
# beside it), peak memory and whether the run met the target of 1 s CPU,
# beside the time Fortis reports for the same problem and mode ("Total
# time" in fortis-core's thesis-examples/robustify.csv and
# voting-robustify.log; JVM start excluded; T/O = over its 10-minute limit;
# voting-1-1 and voting-4-4 from voting-robustify.log, the run of the models
# shipped now). Every example and config of Fortis's thesis-examples, read
# from examples/robustify/ and (voting2 = Voting-4-4) tests/data/
# robustify_voting2. Each run gets a wall-clock --timeout: $BENCH_TIMEOUT
# seconds when set, else 60 s times the load per core (at least 1, from
# /proc/loadavg when the bench starts), so that on a shared machine a run
# still gets about 60 s of CPU: at load 19 on 2 cores a tenth of a core
# each, and the runs of 7-13 s CPU took 60-130 s wall. The runs that do not
# finish in it end with exit 5 and the best set found so far ("partial:
# ..."; shown as "partial" here). Only runs one at a time (its temporary
# file is per run). BENCH_ONLY=TEXT runs only the rows whose "example,
# method" contains TEXT (e.g. BENCH_ONLY=pump-3).
# bench/robustify_same.sh REF_ISMV checks that a speed change left the JSON of
# all 41 configs byte-identical to a reference binary's.
set -u
cd "$(dirname "$0")/.."
ISMV=${ISMV:-build/release/ismv}
ISMV=$(cd "$(dirname "$ISMV")" && pwd)/$(basename "$ISMV")
if [ -n "${BENCH_TIMEOUT:-}" ]; then
  LIMIT=$BENCH_TIMEOUT
else
  LIMIT=$(awk -v n="$(nproc 2>/dev/null || echo 1)" '{f = $1 / n; if (f < 1) f = 1; printf "%d", 60 * f + 0.5}' /proc/loadavg)
fi

run() { # dir, config, label, fortis time
  local dir=$1 cfg=$2
  [ -f "$dir/$cfg" ] || { printf '%-34s %-12s %10s\n' "$3" "" "(missing: $dir/$cfg)"; return; }
  local out rc t m sols
  out=$( (cd "$dir" && /usr/bin/time -f '%e %U %S %M' "$ISMV" robustify "$cfg" --timeout "$LIMIT" --format json) 2>&1 >/tmp/robustify_bench.$$)
  rc=$?
  local u sy
  read -r t u sy m <<<"$(echo "$out" | tail -1)"
  sols=$(python3 -c 'import json,sys
try:
  j = json.load(open(sys.argv[1])); s = j["solutions"]
  print("no supervisor" if j["no_supervisor"] else "%d sol, (%d,%d), %d syn%s" % (len(s), len(s[0]["controllable"]), len(s[0]["observable"]), j["syntheses"], ", sets only" if s[0].get("synthesised") is False else "") if s else "0 sol")
except Exception: print("no report (--timeout'"'"'s watchdog ended it 30 s past the limit)")' /tmp/robustify_bench.$$)
  [ "$rc" = 5 ] && sols="partial: $sols"
  [ "$rc" != 0 ] && [ "$rc" != 5 ] && sols="exit $rc"
  local cpu target
  cpu=$(awk "BEGIN{print $u + $sy}")
  target=$(awk "BEGIN{print ($cpu < 1 && $rc == 0) ? \"yes\" : \"no\"}")
  printf '%-34s %8.2f s %4s %8.2f s %8.1f MB   %-36s (Fortis: %s)\n' "$3" "$cpu" "$target" "$t" \
    "$(awk "BEGIN{print $m / 1024}")" "$sols" "$4"
  rm -f /tmp/robustify_bench.$$
  TOTAL=$((TOTAL + 1))
  [ "$target" = yes ] && UNDER=$((UNDER + 1))
}
TOTAL=0 UNDER=0

E=examples/robustify
V2=tests/data/robustify_voting2
printf 'each run: --timeout %s s wall (load %s); target: under 1 s CPU (user + system)\n' "$LIMIT" "$(cut -d' ' -f1 /proc/loadavg)"
printf '%-34s %10s %4s %10s %11s   %-36s\n' "problem / method" "CPU" "<1s" "wall" "peak RSS" "result (|C|,|O|), syntheses"
while read -r dir ex cfg label fortis; do
  case "$ex, $label" in *"${BENCH_ONLY:-}"*) ;; *) continue ;; esac
  run "$dir" "config-$cfg.json" "$ex, $label" "$fortis"
done <<TABLE
$E/abp naive-protocol simple simple 0.184s
$E/abp naive-protocol fast fast 0.176s
$E/abp naive-protocol pareto pareto 0.202s
$E/abp naive-protocol pareto-non-opt pareto-non-opt 0.179s
$E/abp naive-protocol oasis oasis 0.261s
$E/therac25 therapy simple simple 0.253s
$E/therac25 therapy fast fast 0.369s
$E/therac25 therapy pareto pareto 0.929s
$E/therac25 therapy pareto-non-opt pareto-non-opt 1.032s
$E/therac25 therapy oasis oasis 0.245s
$E/voting voting-1-1 simple simple 0.231s
$E/voting voting-1-1 fast fast 0.416s
$E/voting voting-1-1 pareto pareto 1.248s
$E/voting voting-1-1 pareto-non-opt pareto-non-opt 15.717s
$E/voting voting-1-1 oasis oasis 0.322s
$E/pump pump-1 simple simple 0.269s
$E/pump pump-1 fast fast 0.937s
$E/pump pump-1 pareto pareto 3.798s
$E/pump pump-1 pareto-non-opt pareto-non-opt 47.786s
$E/pump pump-1 oasis oasis 0.765s
$E/oyster oyster-5 simple simple 0.592s
$E/oyster oyster-5 fast fast 0.691s
$E/oyster oyster-5 pareto pareto 0.699s
$E/oyster oyster-5 pareto-non-opt pareto-non-opt 1.483s
$E/oyster oyster-5 oasis oasis 0.668s
$E/pump2 pump-2 simple simple 0.689s
$E/pump2 pump-2 fast fast 8.706s
$E/pump2 pump-2 pareto pareto 8m37.525s
$E/pump2 pump-2 pareto-non-opt pareto-non-opt T/O
$E/pump2 pump-2 oasis oasis 5.083s
$E/pump3 pump-3 simple simple 4.329s
$E/pump3 pump-3 fast fast 5m46.211s
$E/pump3 pump-3 pareto pareto T/O
$E/pump3 pump-3 pareto-non-opt pareto-non-opt T/O
$E/pump3 pump-3 oasis oasis 3m42.528s
$V2 voting-4-4 simple simple 2.864s
$V2 voting-4-4 fast fast 1m35.488s
$V2 voting-4-4 pareto pareto T/O
$V2 voting-4-4 pareto-non-opt pareto-non-opt T/O
$V2 voting-4-4 oasis oasis T/O
TABLE
printf '%d of %d runs finished under 1 s CPU\n' "$UNDER" "$TOTAL"
