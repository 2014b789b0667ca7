#!/usr/bin/env bash
# `ismv eventb --max-error` against an independent brute force over a rational
# grid (tests/eventb_bruteforce.py): the real-valued eco heater (2 and 5), a
# two-event split (5/2, attained), a supremum that is not attained (5/2), a tank
# with two sensors, and the integer twins.
set -eu
cd "$(dirname "$0")/.."
exec python3 tests/eventb_bruteforce.py
