#!/usr/bin/env python3
"""An independent check of `ismv eventb --max-error D` on real-valued models.

For each model below, the guards, actions and invariant are written again here
in Python, and whether the robustification works at an error D is decided by
brute force over a rational grid (step 1/K): every perceived state of a window,
every potential true state within D of it, every parameter value of a range.
No solver and no ismv code is involved. The grid decides

  compartment u(s^)   = the events enabled at some potential true state
  preserving works    : for every event i of u some parameter p_i makes the
                        guard of i hold at every potential true state that
                        enables i, and the chosen actions agree at every one
  repurposing works   : some event of u has a parameter whose action keeps
                        every potential true state inside the invariant

(the paper's Theorems 1 and 2 as docs/eventb.md states them). ismv's answer
(JSON: value, attained) is then confirmed on the grid: an attained maximum v
works at v and v - 1/K and fails at v + 1/K; a supremum v that is not attained
fails at v and v + 1/K and works at v - 1/K. Values are scaled by K to exact
integers. The turn flag tn is left out: the guards ignore it, every controller
action sets it to c, and the invariant is checked at tn = c.

Usage: ISMV=build/release/ismv tests/eventb_bruteforce.py [MODEL-NAME ...]
"""
import itertools
import json
import os
import subprocess
import sys
from fractions import Fraction


def heater_eco(K):
    """tests/models/eventb/eco_real.yaml (and the integer examples/eventb/heater_eco_param.yaml)."""
    def heat(t, p):
        return t[0] < 30 * K and 30 * K <= t[0] + p <= 40 * K

    def keep(t, p):
        return 30 * K <= t[0] <= 40 * K and 30 * K <= t[0] + p <= 40 * K and -4 * K <= p <= 4 * K

    def cool(t, p):
        return 40 * K < t[0] and 30 * K <= t[0] - p <= 40 * K

    return {
        "events": [(heat, lambda t, p: (t[0] + p,)), (keep, lambda t, p: (t[0] + p,)), (cool, lambda t, p: (t[0] - p,))],
        "invariant": lambda s: 30 * K <= s[0] <= 40 * K,
        "window": [(20 * K, 50 * K)],
        "params": (-30 * K, 30 * K),
    }


def split(K, strict=False):
    """tests/models/eventb/split_real.yaml, split_int.yaml and (strict) split_strict.yaml."""
    def low(t, p):
        return t[0] < 5 * K and 0 <= t[0] + p and (t[0] + p < 5 * K if strict else t[0] + p <= 5 * K)

    def high(t, p):
        return 5 * K <= t[0] and 5 * K <= t[0] + p <= 10 * K

    move = lambda t, p: (t[0] + p,)
    return {
        "events": [(low, move), (high, move)],
        "invariant": lambda s: 0 <= s[0] <= 10 * K,
        "window": [(-3 * K, 13 * K)],
        "params": (-16 * K, 16 * K),
    }


def tank(K):
    """tests/models/eventb/tank_real.yaml. The next level depends on h - q only, so the
    perceived outflow is fixed at 0 (every other value is a translation of it)."""
    def fill(t, p):
        return t[0] < 5 * K and 1 * K <= t[0] + p - t[1] <= 6 * K

    def drain(t, p):
        return 5 * K <= t[0] and 4 * K <= t[0] + p - t[1] <= 9 * K

    level = lambda t, p: (t[0] + p - t[1], t[1])
    return {
        "events": [(fill, level), (drain, level)],
        "invariant": lambda s: 1 * K <= s[0] <= 9 * K,
        "window": [(1 * K, 9 * K), (0, 0)],
        "params": (-10 * K, 10 * K),
    }


def works(model, d, method):
    """Whether the robustification works at error d (scaled) on the grid."""
    events, inv = model["events"], model["invariant"]
    params = range(model["params"][0], model["params"][1] + 1)
    enabled = {}

    def en(t):
        if t not in enabled:
            enabled[t] = [any(g(t, p) for p in params) for g, _ in events]
        return enabled[t]

    for hat in itertools.product(*(range(lo, hi + 1) for lo, hi in model["window"])):
        box = list(itertools.product(*(range(h - d, h + d + 1) for h in hat)))
        u = [i for i in range(len(events)) if any(en(t)[i] for t in box)]
        if not u:
            return False
        if method == "repurposing":
            act = lambda i, t, p: events[i][1](t, p)
            if not any(any(all(inv(act(i, t, p)) for t in box) for p in params) for i in u):
                return False
            continue
        choices = []
        for i in u:
            g = events[i][0]
            ok = [p for p in params if all(g(t, p) for t in box if en(t)[i])]
            if not ok:
                return False
            choices.append(ok)
        if len(u) > 1 and not any(
            all(len({events[i][1](t, p) for i, p in zip(u, ps)}) == 1 for t in box) for ps in itertools.product(*choices)
        ):
            return False
    return True


CASES = [
    # (name, model file, model builder, K, methods)
    ("eco_real", "tests/models/eventb/eco_real.yaml", heater_eco, 2, ["preserving", "repurposing"]),
    ("eco_int", "examples/eventb/heater_eco_param.yaml", heater_eco, 1, ["preserving", "repurposing"]),
    ("split_real", "tests/models/eventb/split_real.yaml", split, 4, ["preserving", "repurposing"]),
    ("split_int", "tests/models/eventb/split_int.yaml", split, 1, ["preserving", "repurposing"]),
    ("split_strict", "tests/models/eventb/split_strict.yaml", lambda K: split(K, strict=True), 4, ["preserving"]),
    ("tank_real", "tests/models/eventb/tank_real.yaml", tank, 4, ["preserving", "repurposing"]),
]


def ismv_answer(ismv, path, method):
    out = subprocess.run([ismv, "eventb", path, "--max-error", "D", "--robustify", method, "--format", "json"],
                         capture_output=True, text=True)
    me = json.loads(out.stdout)["max_error"]
    return Fraction(me["value"]), me["attained"], out.returncode


def main():
    ismv = os.environ.get("ISMV", "build/release/ismv")
    only = set(sys.argv[1:])
    failures = 0
    for name, path, build, K, methods in CASES:
        if only and name not in only:
            continue
        model = build(K)
        for method in methods:
            value, attained, rc = ismv_answer(ismv, path, method)
            scaled = value * K
            if scaled.denominator != 1:
                print(f"FAIL {name} {method}: ismv says {value}, not on the grid 1/{K}")
                failures += 1
                continue
            v = int(scaled)
            want = {v - 1: True, v: attained, v + 1: False}
            got = {d: works(model, d, method) for d in want if d >= 0}
            ok = rc == 0 and all(got[d] == want[d] for d in got)
            shown = ", ".join(f"D={Fraction(d, K)} {'works' if got[d] else 'fails'}" for d in sorted(got))
            print(f"{'ok' if ok else 'FAIL'} {name} {method}: ismv {'max' if attained else 'sup'} {value} (exit {rc}); grid: {shown}")
            failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
