#!/usr/bin/env bash
# `ismv verify` shows a progress line on stderr only when stderr is a
# terminal, and never with --quiet; the line is erased at the end. The
# terminal comes from script(1) (util-linux, essential on Debian).
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
run=("$ISMV" verify examples/robotcar/explorer.yaml --bound 6 --probability none --format json)
status=0
tty=$(script -qec "${run[*]} >/dev/null" /dev/null | od -An -c | tr -d ' \n')
case "$tty" in
  *'verify:depth'*prefixes*counterexamples*'prefixes/s'*) ;;
  *) echo "no progress line on a terminal: $tty" | head -c 300 >&2; status=1 ;;
esac
case "$tty" in
  *'\r033[K') ;; # ends by erasing the line
  *) echo "the progress line is not erased at the end" >&2; status=1 ;;
esac
quiet=$(script -qec "${run[*]} --quiet >/dev/null" /dev/null | wc -c)
[ "$quiet" = 0 ] || { echo "--quiet still wrote $quiet bytes to the terminal" >&2; status=1; }
piped=$("${run[@]}" 2>&1 >/dev/null | wc -c)
[ "$piped" = 0 ] || { echo "progress written to a stderr that is not a terminal" >&2; status=1; }
exit $status
