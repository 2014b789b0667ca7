#!/usr/bin/env bash
# A partial build directory rebuilds correctly (issue 11): with libismv.a in
# place and one of its objects deleted, make compiles that object again and
# re-archives the library (a bare `.SECONDARY:` once made every object
# secondary, and `make check MODE=asan` then linked a stale archive without
# the deleted object's changes). Dry runs (make -n) on a scratch build
# directory of empty stand-in files: nothing is compiled, no timing involved.
set -u
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
b=$tmp/b
fail=0
# every library object, as an empty build directory would compile them
make -n BUILD="$b" "$b/libismv.a" 2>/dev/null | grep -o -- "-o $b/[^ ]*\.o" | sed 's/^-o //' >"$tmp/objs"
n=$(wc -l <"$tmp/objs")
[ "$n" -gt 50 ] || { echo "FAIL: only $n library objects found in make -n"; exit 1; }
while read -r o; do mkdir -p "$(dirname "$o")" && : >"$o"; done <"$tmp/objs"
sleep 1 # the archive strictly newer than its objects (one-second file times)
: >"$b/libismv.a"
up=$(make -n BUILD="$b" "$b/libismv.a" 2>&1)
case $up in
  *"is up to date"*) ;;
  *) echo "FAIL: a complete stand-in build is not up to date:"; echo "$up" | head -5; fail=1 ;;
esac
for victim in ism/stop.o apps/cli.o verifier/lts/lts.o; do
  [ -e "$b/$victim" ] || { echo "FAIL: $victim is not a library object"; fail=1; continue; }
  rm "$b/$victim"
  out=$(make -n BUILD="$b" "$b/libismv.a" 2>&1)
  compiled=$(echo "$out" | grep -o -- "-o $b/[^ ]*\.o" | sed "s|^-o $b/||")
  if [ "$compiled" != "$victim" ]; then
    echo "FAIL: $victim deleted: make compiles '${compiled//$'\n'/ }', expected '$victim' alone"
    fail=1
  fi
  echo "$out" | grep -q "rcs $b/libismv.a" || { echo "FAIL: $victim deleted: libismv.a is not re-archived"; fail=1; }
  : >"$b/$victim"
  sleep 1
  : >"$b/libismv.a"
  [ $fail = 0 ] && echo "$victim deleted: make rebuilds it and the archive"
done
exit $fail
