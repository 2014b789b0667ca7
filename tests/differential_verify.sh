#!/usr/bin/env bash
# Differential test of `ismv verify`: on every bundled ISM app (each
# examples/*/*.yaml of kind ism), at bounds 1..4 and in every mode, the
# incremental strategy (model extension first, then the solver; its search
# split at depth 2, so subtrees run on solvers of their own) and the
# paper's per-path strategy must report the same set of counterexample
# paths (the sorted list of `path` arrays of --format json) and the same
# verdict. At bound 5 (PP_BOUNDS lists the bounds compared with per-path,
# whose runs take minutes there) the oracle is the incremental search
# with --solver-only, itself compared with per-path at the lower bounds.
# Run by tests/run.sh (one test); needs ISMV and python3. The two runs go
# side by side. Under MODE=asan (slow, and about memory, not results) the
# bounds stop at 3; DIFF_BOUNDS overrides the list.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

paths() { # FILE.json -> verdict, then one sorted line per counterexample path
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["verdict"], d["total_counterexamples"], len(d["counterexamples"]))
for p in sorted(" ".join(c["path"]) for c in d["counterexamples"]): print(p)' "$1"
}

bounds=${DIFF_BOUNDS:-1 2 3 4 5}
pp_bounds=${PP_BOUNDS:-1 2 3 4}
[ "${MODE:-}" = asan ] && bounds=${DIFF_BOUNDS:-1 2 3}

run() { # NAME MODEL BOUND MODE: writes $tmp/NAME.{json,err,rc}
  local how=(--strategy incremental)
  [ "$1" = per-path ] && how=(--strategy per-path)
  [ "$1" = solver-only ] && how=(--strategy incremental --solver-only)
  "$ISMV" verify "$2" --bound "$3" --mode "$4" "${how[@]}" --split-depth 2 --probability none --format json >"$tmp/$1.json" 2>"$tmp/$1.err"
  echo $? >"$tmp/$1.rc"
}

status=0
runs=0
models=$(grep -l '^kind: ism' examples/*/*.yaml | LC_ALL=C sort)
for model in $models; do
  for bound in $bounds; do
    oracle=solver-only
    case " $pp_bounds " in *" $bound "*) oracle=per-path ;; esac
    for mode in naive ideal actual; do
      run incremental "$model" "$bound" "$mode" &
      run "$oracle" "$model" "$bound" "$mode"
      wait
      for strategy in incremental "$oracle"; do
        rc=$(cat "$tmp/$strategy.rc")
        if [ "$rc" != 0 ] && [ "$rc" != 10 ]; then
          echo "$model bound $bound mode $mode $strategy: exit $rc" >&2
          head -5 "$tmp/$strategy.err" >&2
          status=1
          continue 2
        fi
        paths "$tmp/$strategy.json" >"$tmp/$strategy.paths" || { status=1; continue 2; }
      done
      runs=$((runs + 1))
      if ! diff -u "$tmp/incremental.paths" "$tmp/$oracle.paths" >"$tmp/diff"; then
        echo "$model bound $bound mode $mode: incremental and $oracle differ" >&2
        head -20 "$tmp/diff" >&2
        status=1
      fi
    done
  done
done
[ "$runs" -gt 0 ] || { echo "no example found" >&2; status=1; }
exit $status
