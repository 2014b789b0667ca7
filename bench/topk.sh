#!/usr/bin/env bash
# Benchmark of verify's top-K search (not a test). For every bundled ISM
# app, the default report at BOUNDS (default 6) with --search full (full
# enumeration, then ranking: the engine before the top-K search) and with
# --search top-k side by side: wall and CPU seconds (user + system), peak
# MB, prefixes explored and solver checks (from --stats), and the CPU
# ratio full / top-k; for top-k also the counterexamples the search met
# (found) and those it ranked (found - not ranked by their bound, from the
# stats line): the ranking is most of its time. A run over BUDGET seconds (default 120) is stopped
# and printed as ">BUDGET". The load average is printed first: wall times
# on a shared machine follow it; CPU seconds much less.
#   ISMV=build/release/ismv bash bench/topk.sh [BOUNDS...]
#   APPS="examples/robotcar/explorer.yaml ..." to choose the apps.
set -u
cd "$(dirname "$0")/.."
ISMV=${ISMV:-build/release/ismv}
BUDGET=${BUDGET:-120}
bounds=${*:-6}
apps=${APPS:-$(grep -l '^kind: ism' examples/*/*.yaml | LC_ALL=C sort)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # MODEL BOUND SEARCH -> "wall cpu MB prefixes checks found ranked", or ">BUDGET ..." when stopped
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" timeout "$BUDGET" "$ISMV" verify "$1" --bound "$2" \
    --search "$3" --stats >"$tmp/out" 2>"$tmp/err"
  local rc=$? over=""
  [ "$rc" = 124 ] && over=">"
  local stats
  stats=$(sed -n 's/^ismv: \([0-9]*\) paths, [0-9]* pruned, \([0-9]*\) solver checks.*/\1 \2/p' "$tmp/err")
  local ranked
  ranked=$(sed -n 's/^stats: .* \([0-9]*\) counterexamples found, \([0-9]*\) not ranked by their bound.*/\1 \2/p' \
    "$tmp/out" | awk '{ print $1, $1 - $2 }')
  stats="${stats:-- -} ${ranked:-- -}"
  awk -v over="$over" -v budget="$BUDGET" -v stats="$stats" '/^[0-9.]+ [0-9.]+ [0-9.]+ [0-9]+$/ {
    if (over != "") printf ">%s >%.1f %.0f %s\n", budget, $2 + $3, $4 / 1024, stats
    else printf "%.2f %.2f %.0f %s\n", $1, $2 + $3, $4 / 1024, stats }' "$tmp/time"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "default report, --search full vs --search top-k; wall s, CPU s (user+sys), peak MB, prefixes, solver checks;"
echo "top-k: counterexamples found and ranked"
printf '%-14s %3s | %8s %8s %5s %8s %7s | %8s %8s %5s %8s %7s %6s %6s | %8s\n' app k wall cpu MB prefixes checks \
  wall cpu MB prefixes checks found ranked cpu_full/topk
for model in $apps; do
  for k in $bounds; do
    read -r w1 c1 m1 p1 s1 _ _ < <(run "$model" "$k" full)
    read -r w2 c2 m2 p2 s2 f2 r2 < <(run "$model" "$k" top-k)
    ratio=$(awk -v a="$c1" -v b="$c2" 'BEGIN {
      over = substr(a, 1, 1) == ">"; sub(/^>/, "", a); sub(/^>/, "", b)
      if (substr(b, 1, 1) == "") print "-"; else printf "%s%.1fx\n", over ? ">" : "", a / (b > 0.01 ? b : 0.01) }')
    printf '%-14s %3s | %8s %8s %5s %8s %7s | %8s %8s %5s %8s %7s %6s %6s | %8s\n' "$(basename "$model" .yaml)" \
      "$k" "$w1" "$c1" "$m1" "$p1" "$s1" "$w2" "$c2" "$m2" "$p2" "$s2" "$f2" "$r2" "$ratio"
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
