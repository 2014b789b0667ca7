#!/usr/bin/env python3
"""Random LTSs against an independent implementation of behavioural robustness.

Usage: random_robustness.py ISMV FIRST_SEED COUNT

For each seed it writes a machine M, an environment E, a safety property P
and a deviated environment D (E with fault transitions) as Aldebaran .aut
files, runs `ismv robustness --format json` on them and checks the report
against what this file (with tests/lib/lts_oracle.py) computes from the
definitions of Zhang, Garlan and Kang (FSE'20; docs/robustness.md), sharing no
code with ismv:

  - alpha_R = alpha_M & alpha_E (the labels each file uses);
  - the weakest assumption W: the traces over alpha_R after which M || P_err,
    with every other label internal, cannot reach P's error, as a minimal
    deterministic automaton (its states and transitions are compared with
    `weakest_assumption` when minimised);
  - the classes of Delta: the pairs (state of W, state of E's subset
    construction over alpha_R) reachable together, and a label W allows there
    and E does not (`classes`); each reported trace must lead to one of them
    in this file's own automata, at breadth-first distance, and together they
    must name every class once;
  - the normal violation: whether M || E || P_err reaches P's error;
  - explanations: every explanation must be a run of M || D (internal moves
    aside) whose alpha_R projection is the trace, with faults only between the
    trace's last two actions (Definition 5.5, as ismv and LTSA-Robust search
    M || D || T_sigma) and whose faults are the ones listed; a trace reported
    unexplained must have no such run.

Exits 1 when some model disagrees (its files are kept in a directory it
names), 0 otherwise.
"""
import json
import os
import random
import subprocess
import sys
from collections import deque

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import seeds  # noqa: E402 (tests/lib: the seed loop shared by the random tests)
from lts_oracle import TAU, aut, closure, compose, determinise, random_transitions, successors  # noqa: E402 (tests/lib: LTSA's semantics)


class Lts:
    def __init__(self, n, trans):  # initial state 0
        self.n = n
        self.trans = trans  # list of (src, label, dst)

    def alphabet(self):
        return {a for _, a, _ in self.trans if a != TAU}

    def aut(self):
        return aut(self.n, self.trans)


def random_lts(rng, n, labels, density, tau=False):
    return Lts(n, random_transitions(rng, n, labels, density, tau))


def random_property(rng, labels):
    """A deterministic property: per state a subset of the labels, the rest violations."""
    n = rng.randint(1, 3)
    trans = []
    for s in range(n):
        for a in labels:
            if rng.random() < 0.75:
                trans.append((s, a, rng.randrange(n)))
    return Lts(n, trans)


def minimise(nstates, delta, alphabet, drop):
    """Minimal partial DFA (every state accepting) of the states not in drop,
    transitions into drop removed, from state 0 (kept). Returns (its reachable
    classes, transitions as a dict (class, a) -> class, the initial class)."""
    keep = [s for s in range(nstates) if s not in drop]
    d = {(s, a): t for (s, a), t in delta.items() if s not in drop and t not in drop}
    cls = {s: 0 for s in keep}
    k = 1
    while True:
        sig = {}
        new = {}
        for s in keep:
            key = (cls[s],) + tuple(cls[d[(s, a)]] if (s, a) in d else -1 for a in alphabet)
            new[s] = sig.setdefault(key, len(sig))
        if len(sig) == k:
            cls = new
            break
        cls, k = new, len(sig)
    # reachable part from the initial state
    reach, q = {cls[0]}, deque([cls[0]])
    rep = {}
    for s in keep:
        rep.setdefault(cls[s], s)
    md = {}
    while q:
        c = q.popleft()
        s = rep[c]
        for a in alphabet:
            if (s, a) in d:
                t = cls[d[(s, a)]]
                md[(c, a)] = t
                if t not in reach:
                    reach.add(t)
                    q.append(t)
    return reach, md, cls[0]


def weak_runs_project(succ_md, init, alpha_r, sigma, faults):
    """Whether some run of M || D, internal and non-alpha_R moves interleaved, has
    alpha_R projection exactly sigma, with faults only between sigma's last two actions
    (FSE'20 Definition 5.5, the minimal explanation). BFS over (state, position)."""
    seen = {(init, 0)}
    q = deque([(init, 0)])
    while q:
        s, i = q.popleft()
        for a, t in succ_md[s]:
            if a in alpha_r:
                if i < len(sigma) and sigma[i] == a:
                    if i + 1 == len(sigma):
                        return True
                    if (t, i + 1) not in seen:
                        seen.add((t, i + 1))
                        q.append((t, i + 1))
            elif (a not in faults or i == len(sigma) - 1) and (t, i) not in seen:
                seen.add((t, i))
                q.append((t, i))
    return False


def is_weak_run(succ_md, init, labels):
    cur = closure(succ_md, [init])
    for a in labels:
        cur = closure(succ_md, [t for s in cur for b, t in succ_md[s] if b == a])
        if not cur:
            return False
    return True


def weakest(M, am, P, ap, ar, minimised=True):
    """W of M against P over alpha_R: (empty, number of states, transitions dict, init)."""
    n2, e2, err2 = compose([(M.n, M.trans, am, False), (P.n, P.trans, ap, True)])
    subsets, delta, errs = determinise(n2, e2, 0, set(ar), err2)
    if 0 in errs:
        return True, 0, {}, 0
    if not minimised:
        d = {k: t for k, t in delta.items() if t not in errs}
        return False, len(subsets) - len(errs), d, 0
    states, wd, init = minimise(len(subsets), delta, ar, errs)
    return False, len(states), wd, init


def delta_classes(wd, w0, ed, e0, ar):
    """The reachable (w, e) pairs of two deterministic automata and the labels the first
    allows and the second does not: {(w, e, a): breadth-first length of the trace}."""
    classes, dist = {}, {(w0, e0): 0}
    q = deque([(w0, e0)])
    while q:
        w, e = q.popleft()
        for a in ar:
            if (w, a) not in wd:
                continue
            if (e, a) in ed:
                nxt = (wd[(w, a)], ed[(e, a)])
                if nxt not in dist:
                    dist[nxt] = dist[(w, e)] + 1
                    q.append(nxt)
            else:
                classes[(w, e, a)] = dist[(w, e)] + 1
    return classes


def trace_problems(name, traces, nclasses, classes, wd, w0, ed, e0):
    problems = []
    if nclasses != len(classes):
        problems.append("%s classes: ismv %d, oracle %d" % (name, nclasses, len(classes)))
    seen = set()
    for t in traces:
        sigma = t["trace"]
        w, e, ok = w0, e0, True
        for a in sigma[:-1]:
            if (w, a) not in wd or (e, a) not in ed:
                ok = False
                break
            w, e = wd[(w, a)], ed[(e, a)]
        key = (w, e, sigma[-1]) if ok else None
        if key not in classes:
            problems.append("%s trace %s is in no class" % (name, " ".join(sigma)))
            continue
        if classes[key] != len(sigma):
            problems.append("%s trace %s: not shortest (class at distance %d)" % (name, " ".join(sigma), classes[key]))
        if key in seen:
            problems.append("%s trace %s: its class is reported twice" % (name, " ".join(sigma)))
        seen.add(key)
    if len(traces) == nclasses and len(seen) != len(classes):
        problems.append("%s: %d classes named by traces, oracle has %d" % (name, len(seen), len(classes)))
    return problems


def check(ismv, seed, workdir):
    rng = random.Random(seed)
    shared = ["a", "b", "c", "d"][: rng.randint(2, 4)]
    m_labels = shared + ["m1"] + (["m2"] if rng.random() < 0.5 else [])
    e_labels = [x for x in shared if rng.random() < 0.85] or shared[:1]
    e_labels += ["e1"] if rng.random() < 0.4 else []
    M = random_lts(rng, rng.randint(2, 5), m_labels, 0.3, tau=rng.random() < 0.5)
    E = random_lts(rng, rng.randint(1, 4), e_labels, 0.35, tau=rng.random() < 0.3)
    am = M.alphabet()
    p_labels = sorted(x for x in am if x in shared and rng.random() < 0.8) or sorted(am & set(shared))[:1]
    if not p_labels:
        return None
    P = random_property(rng, p_labels)
    faults = ["f1", "f2"]
    dtrans = set(E.trans)
    for s in range(E.n):
        for f in faults:
            if rng.random() < 0.3:
                dtrans.add((s, f, rng.randrange(E.n)))
        if rng.random() < 0.3:
            dtrans.add((s, rng.choice(e_labels), rng.randrange(E.n)))
    dtrans.add((rng.randrange(E.n), "f1", rng.randrange(E.n)))  # at least one fault
    D = Lts(E.n, sorted(dtrans))
    btrans = list(M.trans)
    k = rng.randrange(len(btrans))
    btrans[k] = (btrans[k][0], btrans[k][1], rng.randrange(M.n))  # one transition redirected
    if rng.random() < 0.5:
        btrans.append((rng.randrange(M.n), rng.choice(sorted(am)), rng.randrange(M.n)))
    B = Lts(M.n, sorted(set(btrans)))
    files = {"m.aut": M, "e.aut": E, "p.aut": P, "d.aut": D, "b.aut": B}
    for name, l in files.items():
        with open(os.path.join(workdir, name), "w") as f:
            f.write(l.aut())
    with open(os.path.join(workdir, "r.yaml"), "w") as f:
        f.write("kind: robustness\nsystem: [m.aut]\nenvironment: e.aut\nproperty: p.aut\n"
                "deviation: d.aut\nfaults: [f1, f2]\ncompare: {system: [b.aut]}\n")
    out = subprocess.run([ismv, "robustness", os.path.join(workdir, "r.yaml"), "--format", "json",
                          "--print", "100000"], capture_output=True, text=True)
    if out.returncode not in (0, 10):
        return ["exit %d: %s" % (out.returncode, out.stderr.strip()[:300])]
    rep = json.loads(out.stdout)
    problems = []

    ae, ap = E.alphabet(), P.alphabet()
    ar = sorted(am & ae)
    # the normal violation: M || E || P_err
    _, _, err3 = compose([(M.n, M.trans, am, False), (E.n, E.trans, ae, False), (P.n, P.trans, ap, True)])
    if (rep["normal_violation"] is not None) != (err3 >= 0):
        problems.append("normal violation: ismv %s, oracle %s" % (rep["normal_violation"] is not None, err3 >= 0))
    # W, Delta
    empty, wn, wd, w0 = weakest(M, am, P, ap, ar)
    wa = rep["weakest_assumption"]
    if wa["empty"] != empty:
        problems.append("weakest assumption empty: ismv %s, oracle %s" % (wa["empty"], empty))
        return problems
    if empty:
        return problems
    if (wa["states"], wa["transitions"]) != (wn, len(wd)):
        problems.append("W: ismv %d states %d transitions, oracle %d, %d"
                        % (wa["states"], wa["transitions"], wn, len(wd)))
    _, edelta, _ = determinise(E.n, E.trans, 0, set(ar))
    classes = delta_classes(wd, w0, edelta, 0, ar)
    problems += trace_problems("Delta", rep["traces"], rep["classes"], classes, wd, w0, edelta, 0)
    # the second design: W_A || (W_B)_err and the reverse (minimised W's: canonical)
    emptyb, _, wdb, wb0 = weakest(B, am, P, ap, ar)
    if not emptyb and "a_not_b" in rep:
        for name, (x, x0, y, y0) in (("a_not_b", (wd, w0, wdb, wb0)), ("b_not_a", (wdb, wb0, wd, w0))):
            problems += trace_problems(name, rep[name]["traces"], rep[name]["classes"],
                                       delta_classes(x, x0, y, y0, ar), x, x0, y, y0)
    # without minimisation (Fortis's numbers): W is the subset construction itself
    raw = subprocess.run([ismv, "robustness", os.path.join(workdir, "r.yaml"), "--format", "json",
                          "--print", "100000", "--no-minimize"], capture_output=True, text=True)
    if raw.returncode not in (0, 10):
        problems.append("--no-minimize: exit %d: %s" % (raw.returncode, raw.stderr.strip()[:300]))
    else:
        rr = json.loads(raw.stdout)
        _, rn, rd, r0 = weakest(M, am, P, ap, ar, minimised=False)
        if (rr["weakest_assumption"]["states"], rr["weakest_assumption"]["transitions"]) != (rn, len(rd)):
            problems.append("--no-minimize W: ismv %d states %d transitions, oracle %d, %d"
                            % (rr["weakest_assumption"]["states"], rr["weakest_assumption"]["transitions"], rn, len(rd)))
        problems += trace_problems("--no-minimize Delta", rr["traces"], rr["classes"],
                                   delta_classes(rd, r0, edelta, 0, ar), rd, r0, edelta, 0)
    # explanations in M || D
    succ_md = successors(*compose([(M.n, M.trans, am, False), (D.n, D.trans, D.alphabet(), False)])[:2])
    for t in rep["traces"]:
        sigma, ex = t["trace"], t["explanation"]
        if ex is None:
            if weak_runs_project(succ_md, 0, set(ar), sigma, faults):
                problems.append("trace %s: unexplained, but a run of M || D projects onto it" % " ".join(sigma))
            continue
        if not is_weak_run(succ_md, 0, ex):
            problems.append("trace %s: explanation %s is no run of M || D" % (" ".join(sigma), " ".join(ex)))
        if [x for x in ex if x in ar] != sigma:
            problems.append("trace %s: explanation %s projects elsewhere" % (" ".join(sigma), " ".join(ex)))
        k = 0
        for x in ex:  # the faults lie after sigma's prefix (Definition 5.5)
            k += x in ar
            if x in faults and k < len(sigma) - 1:
                problems.append("trace %s: explanation %s has a fault before a_{n-1}" % (" ".join(sigma), " ".join(ex)))
                break
        if sorted(set(x for x in ex if x in faults)) != sorted(t["faults"]):
            problems.append("trace %s: faults %s, explanation has %s" % (" ".join(sigma), t["faults"], ex))
    return problems


def main():
    return seeds.run(check, "rrob")


if __name__ == "__main__":
    sys.exit(main())
