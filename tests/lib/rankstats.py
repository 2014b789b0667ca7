"""Rank statistics of predicted against simulated failure probabilities, read
from `ismv simulate --format csv` files: Spearman's correlation (average ranks
for ties), the pairs a simulation separates (disjoint 95% intervals) and
whether the predictions order them the same way, and how many runs would
separate two probabilities. Used by tests/probability_agreement.sh,
bench/experiments.sh and bench/spearman_noise.sh (one copy)."""

import csv
import math


def read_rows(path):
    """The rows of a simulate CSV: (ranked ones, boundary-only ones)."""
    rows = list(csv.DictReader(open(path)))
    return ([r for r in rows if r["boundary_only"] == "no"], [r for r in rows if r["boundary_only"] == "yes"])


def ranks(x):
    order = sorted(range(len(x)), key=lambda i: x[i])
    r = [0.0] * len(x)
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and x[order[j + 1]] == x[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(x, y):
    """Spearman's rank correlation, None when undefined (fewer than two values, or one side constant)."""
    if len(x) < 2:
        return None
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return None if sxx == 0 or syy == 0 else sxy / (sxx * syy) ** 0.5


def separated_pairs(rows):
    """The pairs (a, b) of rows whose simulated 95% intervals are disjoint,
    a's below b's, and how many of them the predictions order the same way
    (predicted a < predicted b; equal predictions do not count as ordered).
    Pass only the rows whose prediction agrees with its interval to leave out
    the pairs that an interval missing its prediction (one in twenty by
    chance) puts in the wrong order."""
    pairs = []
    for a in rows:
        for b in rows:
            if float(a["ci_hi"]) < float(b["ci_lo"]):
                pairs.append((a, b))
    concordant = sum(float(a["predicted"]) < float(b["predicted"]) for a, b in pairs)
    return pairs, concordant


def runs_to_separate(p, q, z=1.96):
    """The number of runs from which two frequencies of true probabilities p
    and q have disjoint 95% (normal) intervals on average: infinite when p == q."""
    if p == q:
        return math.inf
    return math.ceil((z * (math.sqrt(p * (1 - p)) + math.sqrt(q * (1 - q))) / abs(p - q)) ** 2)


def show(r):
    return "undefined" if r is None else "%.4f" % r
