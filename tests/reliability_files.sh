#!/usr/bin/env bash
# Inputs and outputs that are not plain files (issue 11): a FIFO as input is
# refused at once (not waited on) by every reader, a file over 64 MiB too; -o never overwrites an input; a report
# that cannot be written (-o into a missing directory, stdout or -o on a
# full device) is exit 6 with a message; -o replaces a symbolic link instead
# of writing through it, and a finished -o file holds the whole report.
# The same for every other writer (--all's streamed report, --fsp, --dot,
# --svg).
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

# the other readers refuse a FIFO the same way (libxml2's EOFM, .aut, JSON)
mkfifo "$tmp/fifo.aut" "$tmp/fifo.xml" "$tmp/fifo.json"
printf 'kind: robustness\nsystem: fifo.aut\nproperty: fifo.aut\nenvironment: {eofm: fifo.xml}\n' >"$tmp/fifos.yaml"
expect_rc 2 "FIFO .aut and EOFM inputs" timeout 5 "$ISMV" robustness "$tmp/fifos.yaml"
grep -q "fifo.aut': not a regular file" "$tmp/err" || { echo "FAIL: FIFO .aut message"; fail=1; }
expect_rc 2 "FIFO JSON input" timeout 5 "$ISMV" report "$tmp/fifo.json"
# the size cap, 64 MiB, checked before reading (a sparse file: no disk used)
truncate -s 65M "$tmp/big.yaml"
expect_rc 2 "a 65 MiB input" timeout 5 "$ISMV" verify "$tmp/big.yaml"
grep -q "larger than 64 MiB" "$tmp/err" || { echo "FAIL: size cap message"; fail=1; }

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

# the other writers, under the same rules: verify --all -f json streams its
# report (it wrote -o in place: onto the input model too, exit 0), robustify's
# --fsp/--dot and eventb's --svg (each closed a failed file twice: abort;
# robustify's wrote over its own system file, exit 0, and a missing directory
# was exit 1)
expect_rc 1 "--all -o onto the input" "$ISMV" verify "$tmp/m.yaml" --all -f json -o "$tmp/m.yaml"
cmp -s "$model" "$tmp/m.yaml" || { echo "FAIL: --all -o changed the input"; fail=1; }
expect_rc 6 "--all -o into a missing directory" "$ISMV" verify "$model" --all -f json -o "$tmp/missing/out.json"
ln -s target "$tmp/link2.txt"
expect_rc 0 "--all -o over a symbolic link" "$ISMV" verify "$model" --all -f json -o "$tmp/link2.txt"
[ ! -L "$tmp/link2.txt" ] && python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/link2.txt" ||
  { echo "FAIL: --all -o over a link: no JSON report there"; fail=1; }
[ "$(cat "$tmp/target")" = old ] || { echo "FAIL: --all -o wrote through the link"; fail=1; }
cp -r tests/data/robustify_voting2 "$tmp/v2"
expect_rc 1 "robustify --fsp onto its system" "$ISMV" robustify "$tmp/v2/config-fast.json" --fsp "$tmp/v2/sys.lts"
cmp -s tests/data/robustify_voting2/sys.lts "$tmp/v2/sys.lts" || { echo "FAIL: robustify --fsp changed its input"; fail=1; }
expect_rc 6 "robustify --dot into a missing directory" "$ISMV" robustify "$tmp/v2/config-fast.json" \
  --dot "$tmp/missing/d.dot"
expect_rc 0 "robustify --fsp" "$ISMV" robustify "$tmp/v2/config-fast.json" --fsp "$tmp/design.lts"
grep -q "ROBUST" "$tmp/design.lts" || { echo "FAIL: robustify --fsp wrote no design"; fail=1; }
eventb=examples/eventb/heater.yaml
cp "$eventb" "$tmp/heater.yaml"
expect_rc 1 "eventb --svg onto the model" "$ISMV" eventb "$tmp/heater.yaml" --svg "$tmp/heater.yaml"
cmp -s "$eventb" "$tmp/heater.yaml" || { echo "FAIL: eventb --svg changed its input"; fail=1; }
if [ -w /dev/full ]; then
  expect_rc 6 "--all -o /dev/full" "$ISMV" verify "$model" --all -f json -o /dev/full
  "$ISMV" verify "$model" --all -f json >/dev/full 2>"$tmp/err"
  rc=$?
  [ $rc = 6 ] && grep -q "cannot write the report" "$tmp/err" || { echo "FAIL: --all on a full stdout: exit $rc"; fail=1; }
  expect_rc 6 "robustify --fsp /dev/full" "$ISMV" robustify "$tmp/v2/config-fast.json" --fsp /dev/full
  expect_rc 6 "eventb --svg /dev/full" "$ISMV" eventb "$tmp/heater.yaml" --svg /dev/full
  expect_rc 6 "robustness --dot /dev/full" "$ISMV" robustness examples/robustness/abp/abp.yaml --dot /dev/full
  for what in --help --version "masking --help"; do # were exit 0
    expect_rc 6 "$what on a full stdout" bash -c "\"\$0\" $what >/dev/full" "$ISMV"
    grep -q "cannot write the output" "$tmp/err" || { echo "FAIL: $what on a full stdout: no message"; fail=1; }
  done
  expect_rc 6 "simulate --svg /dev/full" "$ISMV" simulate examples/robotcar/explorer.yaml --bound 3 --runs 10 \
    --svg /dev/full
fi
ls -a "$tmp" "$tmp/v2" | grep -q '^\.[a-z]' && { echo "FAIL: a temporary file was left"; ls -a "$tmp"; fail=1; }
exit $fail
