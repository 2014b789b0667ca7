#!/usr/bin/env bash
# Benchmark (not a test): robustification time against the number of
# controller events. Model n: a real x on a line cut into n bands of width 5,
# event k moves x into band k, the sensor error is 1; the realised
# compartments are the n bands and the n - 1 borders (2n - 1 of the 2^n - 1
# subsets). Prints n, wall and user CPU time and peak memory (GNU time) of
# `ismv eventb` (auto: action-preserving succeeds), and the events and
# vacuous subsets it reports.
#   ISMV=build/release/ismv bash bench/eventb.sh [N...]
set -u
cd "$(dirname "$0")/.."
ISMV=${ISMV:-build/release/ismv}
[ -x "$ISMV" ] || { echo "build $ISMV first (make)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

model() { # n -> a model on stdout
  local n=$1 k
  printf 'kind: eventb\nname: bands%d\nvariables:\n  tn: {type: enum, values: [p, c]}\n  x: {type: real}\n' "$n"
  printf 'invariant: "tn == c => (0 <= x and x <= %d)"\n' $((5 * n))
  printf 'initial: "tn == c and 0 <= x and x <= %d"\n' $((5 * n))
  printf 'plant:\n  - {name: drift, params: {d: real}, guard: "true", action: "tn'"'"' == p and x'"'"' == x + d"}\ncontroller:\n'
  for ((k = 0; k < n; k++)); do
    local lo=$((5 * k)) hi=$((5 * k + 5)) where
    if ((k == 0)); then where="x < $hi"; elif ((k == n - 1)); then where="$lo <= x"; else where="$lo <= x and x < $hi"; fi
    printf '  - {name: to%d, params: {a: real}, guard: "%s and %d <= x + a and x + a <= %d", action: "tn'"'"' == c and x'"'"' == x + a"}\n' \
      "$k" "$where" "$lo" "$hi"
  done
  printf 'uncertainty:\n  x: [-1, 1]\n'
}

printf '%4s %8s %8s %8s  %s\n' n wall user "peak MB" "reported"
for n in ${@:-3 4 5 6 7 8 9 10 11 12 13 14 15}; do
  model "$n" >"$tmp/m.yaml"
  /usr/bin/time -f '%e %U %M' -o "$tmp/time" "$ISMV" eventb "$tmp/m.yaml" >"$tmp/out" 2>&1
  rc=$?
  read -r secs user kb <"$tmp/time"
  printf '%4d %8s %8s %8.1f  %s (exit %d)\n' "$n" "$secs" "$user" "$(echo "$kb / 1024" | bc -l)" \
    "$(grep '^robustification' "$tmp/out")" "$rc"
done
