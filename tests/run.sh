#!/usr/bin/env bash
# The test driver behind `make check`. Runs, from the repository root:
#  1. every unit-test binary in $UNIT_DIR (each exits 0 when all its checks pass);
#  2. every golden case tests/cases/**/NAME.cmd: the file holds the ismv
#     arguments (one line, shell words, run from the repository root);
#     NAME.out is the expected stdout, NAME.rc the expected exit code (default 0),
#     NAME.err, when present, the expected stderr;
#  3. every script tests/*.sh other than this one (differential tests), with
#     ISMV (and MODE) in the environment: one test each, passing on exit 0;
# and ends with the line "N passed, N failed".
#
# Tests run $JOBS at a time (default: the number of cores); each is stopped
# after $TEST_TIMEOUT seconds (default 900) and then counts as failed, so a
# hang is a located failure, never a CI run that never ends. Failures are
# reported in name order whatever the order they finish in, and the slowest
# ten tests are listed with their times.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
: "${UNIT_DIR:=}"
: "${JOBS:=$(nproc 2>/dev/null || echo 2)}"
: "${TEST_TIMEOUT:=900}"
ISMV=$(cd "$(dirname "$ISMV")" && pwd)/$(basename "$ISMV")
export ISMV NO_COLOR=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Each test is one line "KIND<TAB>NAME<TAB>ARG"; run_one writes
# $tmp/r/N.{status,log,time}.
tests=()
if [ -n "$UNIT_DIR" ] && [ -d "$UNIT_DIR" ]; then
  for t in "$UNIT_DIR"/*_test; do
    [ -x "$t" ] && tests+=("unit	$(basename "$t")	$t")
  done
fi
while IFS= read -r cmd; do
  base=${cmd%.cmd}
  tests+=("case	${base#tests/cases/}	$cmd")
done < <(find tests/cases -name '*.cmd' 2>/dev/null | LC_ALL=C sort)
for script in tests/*.sh; do
  [ "$script" = tests/run.sh ] && continue
  tests+=("script	$(basename "$script")	$script")
done

limit() { timeout --kill-after=10 "$TEST_TIMEOUT" "$@"; }

run_one() { # index, kind, name, arg
  local i=$1 kind=$2 name=$3 arg=$4 d=$tmp/w$1 start end ok=1 rc
  mkdir -p "$d"
  start=$(date +%s%N)
  case $kind in
    unit)
      limit "$arg" >"$d/out" 2>&1 </dev/null
      rc=$?
      if [ $rc != 0 ]; then
        ok=0
        { [ $rc = 124 ] && echo "  timed out after ${TEST_TIMEOUT}s"; sed 's/^/  /' "$d/out" | tail -20; } >"$tmp/r/$i.log"
      fi
      ;;
    case)
      local base=${arg%.cmd} want_rc=0
      [ -f "$base.rc" ] && want_rc=$(cat "$base.rc")
      eval "set -- $(cat "$arg")"
      limit "$ISMV" "$@" >"$d/out" 2>"$d/err" </dev/null
      rc=$?
      {
        if [ "$rc" != "$want_rc" ]; then ok=0; echo "  $name: exit $rc, expected $want_rc"; fi
        if [ -f "$base.out" ] && ! diff -u "$base.out" "$d/out" >"$d/diff"; then ok=0; head -40 "$d/diff"; fi
        if [ -f "$base.err" ] && ! diff -u "$base.err" "$d/err" >"$d/diff"; then ok=0; head -40 "$d/diff"; fi
      } >"$tmp/r/$i.log"
      ;;
    script)
      limit bash "$arg" >"$d/out" 2>&1 </dev/null
      rc=$?
      if [ $rc != 0 ]; then
        ok=0
        { [ $rc = 124 ] && echo "  timed out after ${TEST_TIMEOUT}s"; sed 's/^/  /' "$d/out" | tail -20; } >"$tmp/r/$i.log"
      fi
      ;;
  esac
  end=$(date +%s%N)
  echo $(((end - start) / 1000000)) >"$tmp/r/$i.time"
  echo $ok >"$tmp/r/$i.status"
  rm -rf "$d"
}

mkdir -p "$tmp/r"
running=0
for i in "${!tests[@]}"; do
  IFS=$'\t' read -r kind name arg <<<"${tests[$i]}"
  if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
  run_one "$i" "$kind" "$name" "$arg" &
  running=$((running + 1))
done
wait

passed=0
failed=0
for i in "${!tests[@]}"; do
  IFS=$'\t' read -r kind name arg <<<"${tests[$i]}"
  label="$kind $name"
  [ "$kind" = script ] && label="script $name"
  if [ "$(cat "$tmp/r/$i.status" 2>/dev/null)" = 1 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $label" >&2
    [ -f "$tmp/r/$i.log" ] && cat "$tmp/r/$i.log" >&2
  fi
  printf '%s\t%s\n' "$(cat "$tmp/r/$i.time" 2>/dev/null || echo 0)" "$label" >>"$tmp/times"
done
echo "slowest tests (ms):"
sort -rn "$tmp/times" | head -10 | sed 's/^/  /'
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
