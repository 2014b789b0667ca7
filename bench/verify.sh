#!/usr/bin/env bash
# Benchmark of `ismv verify` (not a test). Prints three tables:
#  1. engines: every bundled ISM app at BOUNDS (default 6), exploration only
#     (--probability none): the default incremental engine (model extension,
#     path repair, the step alone, then Z3), the same with --solver-only,
#     and the paper's per-path algorithm; seconds, solver checks, the
#     failure checks each tier of the default engine answered
#     (extension/repair/step alone/solver), and per-path / incremental
#     (PP_BUDGET=0 skips per-path). The cpu columns are of a JSON run: they
#     include every counterexample's witness and JSON (the same work in
#     each engine); the search alone is incr_s, solver_s, perpath_s;
#  2. the explorer at its own bound 10 (default report, ranked), with
#     --all --format json, with --all and no ranking, the default report
#     without ranking (it keeps only what it prints), and at bound 12:
#     wall seconds and peak memory (/usr/bin/time -f %M);
#  3. every bundled app at bound 10, default report: seconds and memory.
# Tables 2 and 3 print each Done-when target of issue 14 beside its figure
# (met: yes/no) and the load average after each run.
# bench/topk.sh compares the top-K search with full enumeration per app.
# A run over its budget (BUDGET seconds, default 60; PP_BUDGET for
# per-path) is stopped and printed as ">BUDGET" (with its peak memory so
# far as "<=MB").
#   ISMV=build/release/ismv bash bench/verify.sh [BOUNDS...]
#   TABLES="1 2 3" chooses the tables.
set -u
cd "$(dirname "$0")/.."
ISMV=${ISMV:-build/release/ismv}
BUDGET=${BUDGET:-60}
PP_BUDGET=${PP_BUDGET:-$BUDGET}
TABLES=${TABLES:-1 2 3}
bounds=${*:-6}
apps=$(grep -l '^kind: ism' examples/*/*.yaml | LC_ALL=C sort)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

explore() { # MODEL BOUND BUDGET ARGS... -> "seconds checks cpu-seconds tiers" or ">BUDGET - >cpu -"
  local model=$1 bound=$2 budget=$3
  shift 3
  if [ "$budget" = 0 ]; then
    echo "- - - -"
    return
  fi
  if ! /usr/bin/time -f "%U %S" -o "$tmp/etime" timeout "$budget" "$ISMV" verify "$model" --bound "$bound" \
    --probability none --format json --stats "$@" >"$tmp/out.json" 2>/dev/null && [ ! -s "$tmp/out.json" ]; then
    echo ">$budget - >$(awk '{printf "%.1f", $1 + $2}' "$tmp/etime" 2>/dev/null) -"
    return
  fi
  python3 -c '
import json, sys
cpu = sum(float(x) for x in open(sys.argv[3]).read().split()[-2:])
try:
    s = json.load(open(sys.argv[1]))["stats"]
    tiers = "%d/%d/%d/%d" % (s.get("extended_failures", 0), s.get("repaired_failures", 0),
                             s.get("alone_failures", 0), s.get("solver_failures", 0))
    print("%.3f %d %.2f %s" % (s["seconds"], s["solver_checks"], cpu, tiers))
except Exception:
    print(">%s - >%.1f -" % (sys.argv[2], cpu))' "$tmp/out.json" "$budget" "$tmp/etime"
}

measure() { # BUDGET ARGS... -> "wall-seconds MB cpu-seconds" of the whole run; over budget: ">BUDGET MB-so-far >cpu"
  local budget=$1
  shift
  /usr/bin/time -f "%e %M %U %S" -o "$tmp/time" timeout "$budget" "$ISMV" "$@" >"${MEASURE_OUT:-/dev/null}" 2>&1
  local rc=$?
  local over=""
  [ "$rc" = 124 ] && over=">"
  awk -v over="$over" -v budget="$budget" '/^[0-9.]+ [0-9]+ [0-9.]+ [0-9.]+$/ {
    if (over != "") printf ">%s <=%.0f >%.1f\n", budget, $2 / 1024, $3 + $4
    else printf "%.2f %.0f %.1f\n", $1, $2 / 1024, $3 + $4 }' "$tmp/time"
}

met() { # SECONDS MB TARGET_SECONDS TARGET_MB -> yes / no / - (no target); ">..." (over budget) is not met
  awk -v t="$1" -v mb="$2" -v ts="$3" -v tm="$4" 'BEGIN {
    if (ts == "-" && tm == "-") { print "-"; exit }
    ok = t !~ /^>/ && mb !~ /^</
    if (ok && ts != "-") ok = t + 0 <= ts + 0
    if (ok && tm != "-") ok = mb + 0 <= tm + 0
    print ok ? "yes" : "no" }'
}

case " $TABLES " in *" 1 "*)
  echo "engines, exploration only (--probability none); seconds from --stats (wall of the search), cpu = user+sys of the run"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%-16s %5s %9s %7s %8s %22s %9s %7s %8s %9s %7s %8s %8s %8s\n' app bound incr_s cpu checks \
    fail:ext/rep/alone/smt solver_s cpu checks perpath_s cpu checks pp/incr cpu_ratio
  for model in $apps; do
    app=$(basename "$model" .yaml)
    for k in $bounds; do
      read -r t1 c1 u1 f1 < <(explore "$model" "$k" "$BUDGET")
      read -r t2 c2 u2 _ < <(explore "$model" "$k" "$BUDGET" --solver-only)
      read -r t3 c3 u3 _ < <(explore "$model" "$k" "$PP_BUDGET" --strategy per-path)
      ratio() { python3 -c "
a, b = '$1', '$2'
if a.startswith('>') or b == '-': print('-')
elif b.startswith('>'): print('>%.1fx' % (float(b[1:]) / max(float(a), 1e-2)))
else: print('%.1fx' % (float(b) / max(float(a), 1e-2)))"; }
      printf '%-16s %5s %9s %7s %8s %22s %9s %7s %8s %9s %7s %8s %8s %8s\n' "$app" "$k" "$t1" "$u1" "$c1" "$f1" \
        "$t2" "$u2" "$c2" "$t3" "$u3" "$c3" "$(ratio "$t1" "$t3")" "$(ratio "$u1" "$u3")"
    done
  done
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
esac

case " $TABLES " in *" 2 "*)
  echo "explorer at its own bound (examples/robotcar/explorer.yaml); wall seconds, peak MB and CPU seconds of the whole run"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "target: the issue's Done-when line (wall seconds / peak MB; - : none); met: yes, no, or - (no target)"
  printf '%-44s %9s %8s %8s %10s %4s %6s\n' run seconds peak_MB cpu_s target met load
  x=examples/robotcar/explorer.yaml
  while IFS='|' read -r label target_s target_mb args; do
    # shellcheck disable=SC2086
    read -r t mb cpu < <(measure "$BUDGET" verify $x $args)
    printf '%-44s %9s %8s %8s %10s %4s %6s\n' "$label" "$t" "$mb" "$cpu" "$target_s/$target_mb" \
      "$(met "$t" "$mb" "$target_s" "$target_mb")" "$(cut -d' ' -f1 /proc/loadavg)"
  done <<'ROWS'
bound 10, default report (top-K search)|5|200|--bound 10
bound 10, default report, --search full|-|-|--bound 10 --search full
bound 10, --all --format json|30|100|--bound 10 --all --format json
bound 10, --all --format json --probability none|-|-|--bound 10 --all --format json --probability none
bound 10, default report, --probability none|-|-|--bound 10 --probability none
bound 10, --top 10|-|-|--bound 10 --top 10
bound 12, default report|30|-|--bound 12
ROWS
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
esac

case " $TABLES " in *" 3 "*)
  echo "every app at bound 10, default report (ranked, top-K search); wall seconds, peak MB, CPU seconds;"
  echo "found = counterexamples the search met, ranked = those not cut by their bound (--stats; - when over budget)"
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "target: 60 s wall each (the issue's Done-when line); met: yes or no; load: the 1-minute load average after the run"
  printf '%-16s %9s %8s %8s %8s %8s %7s %4s %6s\n' app seconds peak_MB cpu_s found ranked target met load
  for model in $apps; do
    read -r t mb cpu < <(MEASURE_OUT="$tmp/stats" measure "$BUDGET" verify "$model" --bound 10 --stats)
    read -r found ranked < <(sed -n 's/^stats: .* \([0-9]*\) counterexamples found, \([0-9]*\) not ranked by their bound.*/\1 \2/p' "$tmp/stats" |
      awk '{print $1, $1 - $2}')
    printf '%-16s %9s %8s %8s %8s %8s %7s %4s %6s\n' "$(basename "$model" .yaml)" "$t" "$mb" "$cpu" "${found:--}" \
      "${ranked:--}" 60 "$(met "$t" "$mb" 60 -)" "$(cut -d' ' -f1 /proc/loadavg)"
  done
  echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
esac
