#!/usr/bin/env bash
# Benchmark (not a test): `ismv robustify` on Fortis's thesis examples, wall
# time and peak memory per run, beside the time Fortis reports for the same
# problem and mode ("Total time" in fortis-core's thesis-examples/
# robustify.csv and voting-robustify.log; JVM start excluded; T/O = over its
# 10-minute limit). Examples are read from examples/robustify/ and, for the
# one not copied there (voting2 = Voting-4-4), from the
# reference tree ../shared/anchors/lts/fortis-core/thesis-examples when it
# exists. Each run gets --timeout $BENCH_TIMEOUT (default 300 s; pump-3's
# fast search takes about a minute, its OASIS search three, its Pareto
# searches run into the limit).
set -u
cd "$(dirname "$0")/.."
ISMV=${ISMV:-build/release/ismv}
ISMV=$(cd "$(dirname "$ISMV")" && pwd)/$(basename "$ISMV")
LIMIT=${BENCH_TIMEOUT:-300}
ANCHORS=${ANCHORS:-../shared/anchors/lts/fortis-core/thesis-examples}

run() { # dir, config, label, fortis time
  local dir=$1 cfg=$2
  [ -f "$dir/$cfg" ] || { printf '%-34s %-12s %10s\n' "$3" "" "(missing: $dir/$cfg)"; return; }
  local out rc t m sols
  out=$( (cd "$dir" && /usr/bin/time -f '%e %M' "$ISMV" robustify "$cfg" --timeout "$LIMIT" --format json) 2>&1 >/tmp/robustify_bench.$$)
  rc=$?
  read -r t m <<<"$(echo "$out" | tail -1)"
  sols=$(python3 -c 'import json,sys
try:
  j = json.load(open(sys.argv[1])); s = j["solutions"]
  print("no supervisor" if j["no_supervisor"] else "%d sol, (%d,%d)" % (len(s), len(s[0]["controllable"]), len(s[0]["observable"])) if s else "0 sol")
except Exception: print("-")' /tmp/robustify_bench.$$)
  [ "$rc" = 5 ] && sols="bounded: $sols"
  [ "$rc" != 0 ] && [ "$rc" != 5 ] && sols="exit $rc"
  printf '%-34s %8.2f s %8.1f MB   %-22s (Fortis: %s)\n' "$3" "$t" "$(awk "BEGIN{print $m / 1024}")" "$sols" "$4"
  rm -f /tmp/robustify_bench.$$
}

E=examples/robustify
printf '%-34s %10s %11s   %-22s\n' "problem / method" "time" "peak RSS" "result (|C|,|O|)"
run $E/abp robustify.yaml "naive protocol, pareto" "0.202 s"
run $E/abp config-oasis.json "naive protocol, oasis" "0.261 s"
run $E/therac25 config-pareto.json "therapy, pareto" "0.929 s"
run $E/therac25 config-fast.json "therapy, fast" "0.369 s"
run $E/therac25 config-simple.json "therapy, simple" "0.253 s"
run $E/therac25 config-oasis.json "therapy, oasis" "0.245 s"
run $E/voting config-pareto.json "voting-1-1, pareto" "1.248 s"
run $E/voting robustify.yaml "voting-1-1, fast" "0.416 s"
run $E/voting config-simple.json "voting-1-1, simple" "0.231 s"
run $E/voting config-oasis.json "voting-1-1, oasis" "0.322 s"
run $E/pump config-pareto.json "pump-1, pareto" "3.798 s"
run $E/pump config-fast.json "pump-1, fast" "0.937 s"
run $E/pump config-simple.json "pump-1, simple" "0.269 s"
run $E/pump config-oasis.json "pump-1, oasis" "0.765 s"
run $E/oyster config-pareto.json "oyster-5, pareto" "0.699 s"
run $E/oyster config-fast.json "oyster-5, fast" "0.691 s"
run $E/oyster config-simple.json "oyster-5, simple" "0.592 s"
run $E/oyster config-oasis.json "oyster-5, oasis" "0.668 s"
run $E/pump2 config-pareto.json "pump-2, pareto" "8m37.525 s"
run $E/pump2 config-pareto-non-opt.json "pump-2, pareto-non-opt" "T/O"
run $E/pump2 config-fast.json "pump-2, fast" "8.706 s"
run $E/pump2 config-simple.json "pump-2, simple" "0.689 s"
run $E/pump2 config-oasis.json "pump-2, oasis" "5.083 s"
run $E/pump3 config-pareto.json "pump-3, pareto" "T/O"
run $E/pump3 config-pareto-non-opt.json "pump-3, pareto-non-opt" "T/O"
run $E/pump3 config-fast.json "pump-3, fast" "5m46.211 s"
run $E/pump3 config-simple.json "pump-3, simple" "4.329 s"
run $E/pump3 config-oasis.json "pump-3, oasis" "3m42.528 s"
if [ -d "$ANCHORS" ]; then
  run "$ANCHORS/voting2" config-fast.json "voting-4-4, fast" "T/O"
  run "$ANCHORS/voting2" config-simple.json "voting-4-4, simple" "2.043 s"
  run "$ANCHORS/voting2" config-oasis.json "voting-4-4, oasis" "T/O"
fi
