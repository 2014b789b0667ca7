#!/usr/bin/env bash
# Random ISM models against an independent forward executor
# (tests/random_verify.py): every failing path a run of the app shows must be
# a counterexample of `ismv verify --all` (modes actual and ideal), every
# counterexample's values must replay as a failing run, and the top-K search
# must report what full enumeration does. RANDOM_VERIFY="FIRST COUNT BOUND
# RUNS" chooses the models (default: seeds 1020-1079 at bound 3, 2000 runs each,
# ~15 s; under MODE=asan 20 models). RANDOM_VERIFY_KEEP=DIR keeps the YAML
# of every model that fails.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
args=${RANDOM_VERIFY:-1020 60 3 2000}
[ "${MODE:-}" = asan ] && args=${RANDOM_VERIFY:-1060 20 3 1000}
# shellcheck disable=SC2086 # the four numbers are separate arguments
exec python3 tests/random_verify.py "$ISMV" $args
