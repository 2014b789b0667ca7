#!/usr/bin/env bash
# Random small environments, controllers and properties (.aut) against
# tests/random_envelope.py's brute force over every subset of the deviation space
# (CAV'23): the maximal robust deviations, the normal violation, and with a second
# controller or property the compared Delta, the verdict and both witnesses (robust for
# one side only, minimal). RANDOM_ENVELOPE="FIRST COUNT" chooses the seeds (default
# 1-600, about 4 s).
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
args=${RANDOM_ENVELOPE:-1 600}
# shellcheck disable=SC2086 # two numbers
exec python3 tests/random_envelope.py "$ISMV" $args
