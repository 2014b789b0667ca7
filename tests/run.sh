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
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
: "${UNIT_DIR:=}"
ISMV=$(cd "$(dirname "$ISMV")" && pwd)/$(basename "$ISMV")
export NO_COLOR=1
passed=0
failed=0
failures=()
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); failures+=("$1"); echo "FAIL: $1" >&2; }

if [ -n "$UNIT_DIR" ] && [ -d "$UNIT_DIR" ]; then
  for t in "$UNIT_DIR"/*_test; do
    [ -x "$t" ] || continue
    if "$t" >"$tmp/unit.out" 2>&1; then pass; else fail "unit $(basename "$t")"; sed 's/^/  /' "$tmp/unit.out" | tail -20 >&2; fi
  done
fi

while IFS= read -r cmd; do
  base=${cmd%.cmd}
  name=${base#tests/cases/}
  want_rc=0
  [ -f "$base.rc" ] && want_rc=$(cat "$base.rc")
  eval "set -- $(cat "$cmd")"
  "$ISMV" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  ok=1
  if [ "$rc" != "$want_rc" ]; then ok=0; echo "  $name: exit $rc, expected $want_rc" >&2; fi
  if [ -f "$base.out" ] && ! diff -u "$base.out" "$tmp/out" >"$tmp/diff"; then ok=0; head -40 "$tmp/diff" >&2; fi
  if [ -f "$base.err" ] && ! diff -u "$base.err" "$tmp/err" >"$tmp/diff"; then ok=0; head -40 "$tmp/diff" >&2; fi
  if [ $ok = 1 ]; then pass; else fail "case $name"; fi
done < <(find tests/cases -name '*.cmd' 2>/dev/null | LC_ALL=C sort)

for script in tests/*.sh; do
  [ "$script" = tests/run.sh ] && continue
  if ISMV="$ISMV" bash "$script" >"$tmp/script.out" 2>&1; then pass; else
    fail "script $(basename "$script")"
    sed 's/^/  /' "$tmp/script.out" | tail -20 >&2
  fi
done

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
