#!/usr/bin/env bash
# Random ISM models against an independent forward executor
# (tests/random_verify.py, which says what it checks): every failing path a
# run of the app shows must be a counterexample of `ismv verify --all` (modes
# actual and ideal), every counterexample's values must replay as a run that
# fails where it says, the three most likely counterexamples' probabilities
# must match the executor's runs at their environment, per-path must report
# the paths the incremental engine does, and the top-K search what full
# enumeration does. RANDOM_VERIFY="FIRST COUNT BOUND RUNS" chooses the models
# (default: seeds 1020-1079 at bound 3, 2000 runs each, about 60 s CPU; under
# MODE=asan seeds 1060-1079, 1000 runs). RANDOM_VERIFY_KEEP=DIR keeps the
# YAML of every model that fails.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
args=${RANDOM_VERIFY:-1020 60 3 2000}
[ "${MODE:-}" = asan ] && args=${RANDOM_VERIFY:-1060 20 3 1000}
# shellcheck disable=SC2086 # the four numbers are separate arguments
exec python3 tests/random_verify.py "$ISMV" $args
