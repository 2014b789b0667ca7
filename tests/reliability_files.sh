#!/usr/bin/env bash
# Inputs and outputs that are not plain files (issue 11): a FIFO as input is
# refused at once (not waited on); -o never overwrites an input; a report
# that cannot be written (-o into a missing directory, stdout or -o on a
# full device) is exit 6 with a message; -o replaces a symbolic link instead
# of writing through it, and a finished -o file holds the whole report.
set -u
: "${ISMV:?}"
model=tests/cases/reliability/model-options-ok.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect_rc() { # WANT DESCRIPTION COMMAND...
  local want=$1 what=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL: $what: exit $rc, expected $want"
    sed 's/^/  /' "$tmp/err"
    fail=1
  fi
}

mkfifo "$tmp/fifo"
expect_rc 2 "FIFO input" timeout 5 "$ISMV" verify "$tmp/fifo"
grep -q "not a regular file" "$tmp/err" || { echo "FAIL: FIFO message"; fail=1; }

cp "$model" "$tmp/m.yaml"
expect_rc 1 "-o onto the input" "$ISMV" verify "$tmp/m.yaml" -o "$tmp/m.yaml"
cmp -s "$model" "$tmp/m.yaml" || { echo "FAIL: the input was changed"; fail=1; }
ln -s m.yaml "$tmp/alias.yaml"
expect_rc 1 "-o onto the input through a link" "$ISMV" verify "$tmp/m.yaml" -o "$tmp/alias.yaml"

expect_rc 6 "-o into a missing directory" "$ISMV" verify "$model" -o "$tmp/missing/out.txt"
grep -q "cannot write" "$tmp/err" || { echo "FAIL: message for a missing directory"; fail=1; }
if [ -w /dev/full ]; then
  expect_rc 6 "-o /dev/full" "$ISMV" verify "$model" -o /dev/full
  "$ISMV" verify "$model" >/dev/full 2>"$tmp/err"
  rc=$?
  [ $rc = 6 ] && grep -q "cannot write the report" "$tmp/err" || { echo "FAIL: stdout on /dev/full: exit $rc"; fail=1; }
fi

"$ISMV" verify "$model" >"$tmp/want.txt" 2>/dev/null
echo old >"$tmp/target"
ln -s target "$tmp/link.txt"
expect_rc 0 "-o over a symbolic link" "$ISMV" verify "$model" -o "$tmp/link.txt"
[ ! -L "$tmp/link.txt" ] && cmp -s "$tmp/link.txt" "$tmp/want.txt" || { echo "FAIL: -o over a link"; fail=1; }
[ "$(cat "$tmp/target")" = old ] || { echo "FAIL: -o wrote through the link"; fail=1; }
ls -a "$tmp" | grep -q '^\.link' && { echo "FAIL: a temporary file was left"; fail=1; }
exit $fail
