#!/usr/bin/env bash
# Random explicit nominal and implementation models (YAML form) against
# tests/random_masking.py's own solution of the strong masking game: whether the
# implementation masks its faults, the distance and the number of faults, in the default
# game, with --no-nominal-match, with --fault-answers and (strong game) --deadlock-error;
# two in five with internal moves, in the weak game. RANDOM_MASKING="FIRST COUNT" chooses the seeds (default 1-300, ~6 s).
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
args=${RANDOM_MASKING:-1 300}
# shellcheck disable=SC2086 # two numbers
exec python3 tests/random_masking.py "$ISMV" $args
