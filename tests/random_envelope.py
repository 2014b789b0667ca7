#!/usr/bin/env python3
"""Random LTSs against a brute-force implementation of safe environmental envelopes.

Usage: random_envelope.py ISMV FIRST_SEED COUNT

For each seed it writes an environment E, a controller C, a safety property P and
sometimes an environmental constraint P_env as Aldebaran .aut files (no tau, every
state of E reachable), runs `ismv envelope --format json` (seed mod 3 picks
`--algorithm` default, paper or brute-force) and compares the set of
maximal robust deviations with what this file finds by trying every subset d of
the deviation space Q_E x alpha_E x Q_E (CAV'23; docs/envelope.md): E_d has E's
transitions and d's (Definition 2), and d is robust when E_d || C || P_err never reaches P's error and E_d || P_env,err never reaches
P_env's error (a property is determinised, then completed: a label of its
alphabet a state does not enable is a violation; labels outside a component's alphabet do not move it).
Delta is the set of the maximal robust d, each listed with E's own transitions;
a d's transitions from states E_d cannot reach are in it (maximality). Shares no code with ismv. Exits 1 when some model
disagrees (its files are kept in a directory it names).
"""
import itertools
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import seeds  # noqa: E402 (tests/lib: the seed loop shared by the random tests)
from lts_oracle import aut, compose, determinise, random_transitions  # noqa: E402 (tests/lib: LTSA's semantics)


VERDICTS = {}  # the comparisons checked, by verdict


def det_property(trans):
    """A property's subset construction (docs/envelope.md: a nondeterministic property or
    constraint is determinised before it is completed): (states, transitions)."""
    subsets, delta, _ = determinise(max(max(s, t) for s, _, t in trans) + 1, trans, 0,
                                    {a for _, a, _ in trans})
    return len(subsets), [(i, a, j) for (i, a), j in sorted(delta.items())]


def check(ismv, seed, workdir):
    rng = random.Random(seed)
    ne = rng.randint(1, 3)
    ae = ["a", "b"] if ne > 1 or rng.random() < 0.5 else ["a", "b", "c"]
    if ne == 3:
        ae = ["a"] if rng.random() < 0.3 else ae
    e_trans = random_transitions(rng, ne, ae, 0.35)
    ac_labels = ae + (["k"] if rng.random() < 0.5 else [])
    nc = rng.randint(1, 3)
    c_trans = random_transitions(rng, nc, ac_labels, 0.5)
    if not c_trans:
        return None
    c2 = list(c_trans)  # the compared design: transitions dropped, redirected or added
    labels_c = sorted({a for _, a, _ in c_trans})
    for _ in range(rng.randint(1, 3)):
        k, how = rng.randrange(len(c2)), rng.randrange(3)
        if how == 0 and len(c2) > 1:
            del c2[k]
        elif how == 1:
            c2[k] = (c2[k][0], c2[k][1], rng.randrange(nc))
        else:
            c2.append((rng.randrange(nc), rng.choice(labels_c), rng.randrange(nc)))
    c2 = sorted(set(c2))
    if {a for _, a, _ in c2} != set(labels_c):  # the same alphabet
        c2 = sorted(set(c2) | set(c_trans[:1]) | {(0, a, 0) for a in labels_c if a not in {b for _, b, _ in c2}})
    aE = {a for _, a, _ in e_trans}
    aC = {a for _, a, _ in c_trans}
    if rng.random() < 0.6:  # E's own behaviour (one move per state and label) as the property, loosened
        np_, first = ne, {}
        for s_, a, t in e_trans:
            first.setdefault((s_, a), t)
        p_trans = {(s_, a, t) for (s_, a), t in first.items()}
        p_trans |= {(s_, a, rng.randrange(ne)) for s_ in range(ne) for a in sorted(aE)
                    if (s_, a) not in first and rng.random() < 0.3}
        p_trans = sorted(p_trans)
    else:
        pl = sorted(x for x in aE | aC if rng.random() < 0.7) or sorted(aE)[:1]
        np_ = rng.randint(1, 2)
        p_trans = sorted({(s, a, rng.randrange(np_)) for s in range(np_) for a in pl if rng.random() < 0.7})
    aP = {a for _, a, _ in p_trans}
    if not aP:
        return None
    env_prop = None
    if rng.random() < 0.4:
        el = sorted(aE)
        env_prop = sorted({(s, a, rng.randrange(2)) for s in range(2) for a in el if rng.random() < 0.7})
        if not env_prop:
            env_prop = None
    space = [(s, a, t) for s in range(ne) for a in sorted(aE) for t in range(ne)]
    if len(space) > 14:
        return None
    p2 = set(p_trans)  # the compared property: a move added or dropped
    if rng.random() < 0.5 and len(p2) > 1:
        p2.discard(rng.choice(sorted(p2)))
    else:
        p2.add((rng.randrange(np_), rng.choice(sorted(aP)), rng.randrange(np_)))
    p2 = sorted(p2)
    by_property = rng.random() < 0.5 and {a for _, a, _ in p2} == aP
    files = {"e.aut": (ne, e_trans), "c.aut": (nc, c_trans), "p.aut": (np_, p_trans), "c2.aut": (nc, c2),
             "p2.aut": (np_, p2)}
    if env_prop:
        files["q.aut"] = (2, env_prop)
    for name, (n, tr) in files.items():
        with open(os.path.join(workdir, name), "w") as f:
            f.write(aut(n, tr))
    with open(os.path.join(workdir, "env.yaml"), "w") as f:
        f.write("kind: envelope\nenvironment: e.aut\ncontroller: c.aut\nproperty: p.aut\n")
        if env_prop:
            f.write("env-properties: [q.aut]\n")
        f.write("compare: {property: p2.aut}\n" if by_property else "compare: {controller: c2.aut}\n")
    algorithm = ("default", "paper", "brute-force")[seed % 3]  # each of ismv's three searches
    out = subprocess.run([ismv, "envelope", os.path.join(workdir, "env.yaml"), "--format", "json",
                          "--algorithm", algorithm], capture_output=True, text=True)
    if out.returncode not in (0, 10):
        return ["exit %d: %s" % (out.returncode, out.stderr.strip()[:400])]
    rep = json.loads(out.stdout)

    ctl, prop = (nc, c_trans), det_property(p_trans)
    envp = det_property(env_prop) if env_prop else None
    aQ = {a for _, a, _ in env_prop} if env_prop else set()
    ctl2, prop2 = (nc, c2), det_property(p2)

    def robust(d, c=ctl, p=prop):
        """E_d || C || P_err and E_d || P_env,err avoid their error states."""
        e = (ne, d, aE, False)
        if compose([e, c + (aC, False), p + (aP, True)])[2] >= 0:
            return False
        return not envp or compose([e, envp + (aQ, True)])[2] < 0

    normal_unsafe = not robust(e_trans)
    problems = []
    if rep.get("normal_unsafe") != normal_unsafe:
        problems.append("normal_unsafe: ismv %s, oracle %s" % (rep.get("normal_unsafe"), normal_unsafe))
        return problems
    if normal_unsafe:
        if rep["delta_size"] != 0:
            problems.append("E itself is unsafe, ismv reports %d deviations" % rep["delta_size"])
        return problems
    extra = [t for t in space if t not in set(e_trans)]  # E_d = E's transitions and d (Definition 2)

    def delta(c, p=prop):
        rob = {frozenset(e_trans) | frozenset(d) for r in range(len(extra) + 1)
               for d in itertools.combinations(extra, r) if robust(sorted(set(e_trans) | set(d)), c, p)}
        return {d for d in rob if not any(d < e for e in rob)}

    def compare_delta(name, got_list, maximal):
        got = {frozenset((s, a, t) for s, a, t in d) for d in got_list}
        if got != maximal:
            only_i = [sorted(d) for d in got - maximal][:2]
            only_o = [sorted(d) for d in maximal - got][:2]
            problems.append("%s: ismv %d, oracle %d; only ismv %s; only oracle %s"
                            % (name, len(got), len(maximal), only_i, only_o))

    da = delta(ctl)
    compare_delta("Delta", rep["deltas"], da)
    if rep["delta_size"] != len(rep["deltas"]):
        problems.append("delta_size %d, %d deltas listed" % (rep["delta_size"], len(rep["deltas"])))
    # the comparison (Definitions 6 and 7): A at least as robust as B when every d_B lies in some d_A
    side_b = (ctl, prop2) if by_property else (ctl2, prop)
    if robust(e_trans, *side_b):
        db = delta(*side_b)
        compare_delta("compared Delta", rep["compare"]["deltas"], db)
        ab = all(any(y <= x for x in da) for y in db)
        ba = all(any(x <= y for y in db) for x in da)
        verdict = "equal" if ab and ba else "more robust" if ab else "less robust" if ba else "incomparable"
        VERDICTS[verdict] = VERDICTS.get(verdict, 0) + 1
        if rep["comparison"] != verdict:
            problems.append("comparison: ismv %s, oracle %s" % (rep["comparison"], verdict))
        for side, yes, no in (("main_only", (ctl, prop), side_b), ("compare_only", side_b, (ctl, prop))):
            w = rep["witness"][side]
            if w is None:
                continue
            full = set(e_trans) | {tuple(t) for t in w}
            if not robust(sorted(full), *yes) or robust(sorted(full), *no):
                problems.append("witness %s %s: not robust for one side only" % (side, w))
            for t in {tuple(t) for t in w} - set(e_trans):
                if not robust(sorted(full - {t}), *no):
                    problems.append("witness %s %s: not minimal (drop %s)" % (side, w, t))
        if (rep["witness"]["main_only"] is None) != ba or (rep["witness"]["compare_only"] is None) != ab:
            problems.append("witnesses %s for verdict %s" % (rep["witness"], verdict))
    return problems


def main():
    return seeds.run(check, "renv", lambda: "; comparisons: " + ", ".join(
        "%d %s" % (n, v) for v, n in sorted(VERDICTS.items())))


if __name__ == "__main__":
    sys.exit(main())
