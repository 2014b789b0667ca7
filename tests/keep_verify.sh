#!/usr/bin/env bash
# An unranked `ismv verify` report that prints a subset of the
# counterexamples (the text's classes view, --top, SARIF) keeps only what it
# prints, with the totals and the classes' counts (apps/verify_keep.h).
#  1. The same report, byte for byte, as the route that holds every
#     counterexample: the model with an `expect:` block is reported from the
#     whole list (the expectation needs the totals), so each model is run
#     twice at one path, without and with the block. Every bundled ISM app,
#     text (classes view, --top 3), JSON --top 3, SARIF, JUnit --top 2.
#  2. Peak memory does not grow with the count: the explorer at bound 8
#     (about 16 000 counterexamples; the whole list took 127 MB) peaks
#     within 16 MB of bound 6 (1 513), --jobs 1 so that no subtree searched
#     ahead buffers its own.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bound=${KEEP_BOUND:-5}
[ "${MODE:-}" = asan ] && bound=${KEEP_BOUND:-4}
status=0
for model in $(grep -l '^kind: ism' examples/*/*.yaml | LC_ALL=C sort); do
  for args in "--format text" "--format text --top 3" "--format json --top 3" "--format sarif" \
    "--format junit --top 2"; do
    cp "$model" "$tmp/m.yaml"
    # shellcheck disable=SC2086
    "$ISMV" verify "$tmp/m.yaml" --bound "$bound" --probability none $args >"$tmp/kept" 2>"$tmp/kept.err"
    rc1=$?
    case $rc1 in 0) verdict=verified ;; 10) verdict=violated ;; *) verdict=inconclusive ;; esac
    printf '\nexpect: {verdict: %s}\n' "$verdict" >>"$tmp/m.yaml"
    # shellcheck disable=SC2086
    "$ISMV" verify "$tmp/m.yaml" --bound "$bound" --probability none $args >"$tmp/whole" 2>"$tmp/whole.err"
    rc2=$?
    # the expectation holds: exit 0 (and JSON's exit_code says so)
    sed -i "s/\"exit_code\": 0,/\"exit_code\": $rc1,/" "$tmp/whole"
    if [ "$rc2" != 0 ] || ! cmp -s "$tmp/kept" "$tmp/whole"; then
      echo "$model --bound $bound $args: kept report (exit $rc1) differs from the whole list's (exit $rc2)" >&2
      diff "$tmp/kept" "$tmp/whole" | head -10 >&2
      status=1
    fi
    if ! grep -q 'counterexample\|"results"\|testsuite' "$tmp/kept"; then
      echo "$model $args: empty report" >&2
      status=1
    fi
  done
done

peak() { # BOUND ARGS... -> peak KB of a default unranked report of the explorer
  local b=$1
  shift
  /usr/bin/time -f %M -o "$tmp/time" "$ISMV" verify examples/robotcar/explorer.yaml --bound "$b" \
    --probability none --jobs 1 "$@" >"$tmp/out" 2>/dev/null
  tail -1 "$tmp/time"
}
if [ "${MODE:-}" != asan ]; then
  for args in "--format text" "--format sarif"; do
    # shellcheck disable=SC2086
    small=$(peak 6 $args)
    # shellcheck disable=SC2086
    large=$(peak 8 $args)
    count=$(grep -o '^[0-9]* counterexamples' "$tmp/out" | cut -d' ' -f1)
    [ "$args" = "--format sarif" ] || [ "${count:-0}" -gt 10000 ] || {
      echo "explorer bound 8: $count counterexamples, expected over 10000" >&2
      status=1
    }
    if [ "$large" -gt $((small + 16384)) ]; then
      echo "explorer $args: peak $large KB at bound 8, $small KB at bound 6 (over 16 MB more)" >&2
      status=1
    fi
  done
fi
exit $status
