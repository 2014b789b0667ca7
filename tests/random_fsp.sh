#!/usr/bin/env bash
# Random FSP composites (locals, choice, nondeterminism, STOP, prefix labels, relabelling
# of an element and of the composite, hiding) against tests/random_fsp.py's own
# construction of the LTS (LTSA's semantics: a composite's relabelling applies to every
# component before composing): the system's states and transitions, the interface, and
# the robustness report of the FSP system against that of the oracle's LTS as .aut.
# RANDOM_FSP="FIRST COUNT" chooses the seeds (default 1-600, about 6 s).
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
args=${RANDOM_FSP:-1 600}
# shellcheck disable=SC2086 # two numbers
exec python3 tests/random_fsp.py "$ISMV" $args
