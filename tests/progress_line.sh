#!/usr/bin/env bash
# `ismv verify`, `simulate`, `masking` and `envelope` show a progress line
# (apps/progress.c) on stderr only when stderr is a terminal, and never with
# --quiet; the line is erased at the
# end, and stdout is byte-identical whether stderr is a terminal or not.
# The terminal comes from script(1) (util-linux, essential on Debian).
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

check() { # NAME PATTERN COMMAND...: the progress line must match PATTERN
  local name=$1 pattern=$2
  shift 2
  local run="$*"
  local tty
  tty=$(timeout 120 script -qec "$run >$tmp/tty.out" /dev/null | od -An -c | tr -d ' \n')
  # shellcheck disable=SC2254
  case "$tty" in
    $pattern) ;;
    *) echo "$name: no progress line on a terminal: $tty" | head -c 300 >&2; status=1 ;;
  esac
  case "$tty" in
    *'\r033[K') ;; # ends by erasing the line
    *) echo "$name: the progress line is not erased at the end" >&2; status=1 ;;
  esac
  local quiet
  quiet=$(timeout 120 script -qec "$run --quiet >/dev/null" /dev/null | wc -c)
  [ "$quiet" = 0 ] || { echo "$name: --quiet still wrote $quiet bytes to the terminal" >&2; status=1; }
  timeout 120 "$@" >"$tmp/piped.out" 2>"$tmp/piped.err"
  [ -s "$tmp/piped.err" ] && { echo "$name: progress written to a stderr that is not a terminal" >&2; status=1; }
  cmp -s "$tmp/tty.out" "$tmp/piped.out" || { echo "$name: stdout differs with stderr on a terminal" >&2; status=1; }
  [ -s "$tmp/piped.out" ] || { echo "$name: no report" >&2; status=1; }
}

check verify '*verify:depth*prefixes*counterexamples*prefixes/s*' \
  "$ISMV" verify examples/robotcar/explorer.yaml --bound 6 --probability none --format json
check simulate '*simulate:depth*prefixes*simulate:ranking*counterexamples*simulate:counterexample1of*runseach*' \
  "$ISMV" simulate examples/robotcar/explorer.yaml --bound 3 --runs 1000 --top 2
check masking '*masking:exploringthenominalmodel*masking:exploringtheimplementationmodel*masking:buildingandsolvingthegame*' \
  "$ISMV" masking examples/masking/brp-n5-m5.yaml
check envelope '*envelope:buildingthemeta-systemandsearchingthedeviations(default)*' \
  "$ISMV" envelope examples/envelope/oyster/oyster.yaml
exit $status
