#!/usr/bin/env bash
# Random LTSs (machine, environment, property, deviation and a second design, as .aut
# files) against tests/random_robustness.py's own implementation of behavioural
# robustness (FSE'20): the weakest assumption's size (minimised and not), the classes of
# Delta and of both comparisons, every representative trace in its class at its shortest,
# the normal violation, and every explanation (or its absence) in M || D.
# RANDOM_ROBUSTNESS="FIRST COUNT" chooses the seeds (default 1-300, about 4 s).
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
args=${RANDOM_ROBUSTNESS:-1 300}
# shellcheck disable=SC2086 # two numbers
exec python3 tests/random_robustness.py "$ISMV" $args
