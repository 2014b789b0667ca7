#!/usr/bin/env bash
# Every Fortis thesis example and config that runs in about a second
# (fortis-core's thesis-examples: abp, therac25, voting, pump, oyster, pump2,
# voting2 = Voting-4-4; configs simple, fast, pareto, pareto-non-opt, oasis),
# compared with Fortis's published results and checked by properties; the
# pairs and Fortis's numbers are the table in tests/lib/robustify_thesis.py.
#
# 1. Against Fortis (thesis-examples/robustify.csv and robustify.log; voting
#    and voting2 from voting-robustify.log, whose models these are): the
#    number of syntheses (for pareto-non-opt, which we run as the optimised
#    Pareto search, at most Fortis's), of solutions, each solution's
#    (|controllable|, |observable|), its cost (supervisory methods) and how
#    many preferred behaviours it keeps.
# 2. Safety under the deviated environment through `ismv robustness` (another
#    code path): the design printed with --fsp, composed with the config's
#    deviation files, shows no violation of its safety property.
# 3. tests/lib/robustify_oracle.py on the closed loop D || E' and the original
#    M || E' (each written as .aut by an unconstrained `robustify` run, method
#    simple, with every file in `sys`): progress (nonblocking), the kept
#    behaviours, D || E' a restriction of M || E' in which only the solution's
#    controllable actions are refused and only its observable ones are told
#    apart (normality), and the cost recomputed with Fortis's weights.
#    OASIS designs are abstractions of M, not restrictions: only progress and
#    the kept behaviours are checked there.
# The slower pairs (pump2 pareto, pump3, voting2 fast: seconds to minutes) run
# with ROBUSTIFY_THESIS_ALL=1. Run by tests/run.sh (one test); needs ISMV.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
ISMV=$(cd "$(dirname "$ISMV")" && pwd)/$(basename "$ISMV")
if [ "${ROBUSTIFY_THESIS_ALL:-0}" = 1 ]; then
  exec python3 tests/lib/robustify_thesis.py "$ISMV" all
fi
exec python3 tests/lib/robustify_thesis.py "$ISMV"
