#!/usr/bin/env bash
# `ismv verify` splits its search over threads; the report must not depend
# on how many (the search and the ranking both use them): on every bundled
# robot-car example (bound 4, the search
# split with --split-depth 2, every mode) the JSON with --jobs 1, 2 and 3 is
# byte-identical.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
bound=${JOBS_BOUND:-4}
[ "${MODE:-}" = asan ] && bound=${JOBS_BOUND:-3}
status=0
for model in examples/robotcar/*.yaml; do
  for mode in naive ideal actual; do
    ref=$("$ISMV" verify "$model" --bound "$bound" --mode "$mode" --split-depth 2 --jobs 1 --format json 2>&1 | md5sum)
    for j in 2 3; do
      got=$("$ISMV" verify "$model" --bound "$bound" --mode "$mode" --split-depth 2 --jobs "$j" --format json 2>&1 | md5sum)
      if [ "$got" != "$ref" ]; then
        echo "$model mode $mode: --jobs $j differs from --jobs 1" >&2
        status=1
      fi
    done
  done
done
exit $status
