#!/usr/bin/env python3
"""Random FSP composites against an independent implementation of LTSA's semantics.

Usage: random_fsp.py ISMV FIRST_SEED COUNT

For each seed it writes two or three random primitive processes (local processes,
choice, nondeterminism, STOP) and a composite

    ||SYS = (p:P1 || P2/{x/a} || P3)/{y/b, ...}\\{c, ...}.

(prefix labels, relabelling of an element and of the composite, which LTSA applies
to every component before composing, merging labels included; hiding after the
composition), builds the same LTS here from the definitions (docs/fsp.md) with the
composition of tests/lib/lts_oracle.py, and runs `ismv robustness` on the FSP system and, as a check of the
analysis' input, on this file's LTS written as .aut, with one random environment and
property over the composite's alphabet. Compared: the system's reachable states and
transitions, the interface (the composite's alphabet, with labels no reachable
transition uses, and E's), and, where every label of the alphabet is used (an .aut
file's alphabet is its labels), the two reports' weakest assumption, normal violation
and classes.
Shares no code with ismv. Exits 1 when some model disagrees (its files are kept in a
directory it names).
"""
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import lts_oracle  # noqa: E402 (tests/lib: LTSA's semantics)
import seeds  # noqa: E402 (tests/lib: the seed loop shared by the random tests)

TAU = lts_oracle.TAU


class Lts:
    def __init__(self, n, trans, alphabet):
        self.n = n
        self.trans = sorted(set(trans))
        self.alphabet = set(alphabet)


def matches(label, old):
    return label == old or label.startswith(old + ".")


def relabel(l, pairs):
    """LTSA's relabelling: each (new, old) renames the labels old and old.*; a label
    named by several pairs gets a transition for each."""
    def names(a):
        if a == TAU:
            return [a]
        out = [new + a[len(old):] for new, old in pairs if matches(a, old)]
        return out or [a]
    return Lts(l.n, [(s, b, t) for s, a, t in l.trans for b in names(a)],
               {b for a in l.alphabet for b in names(a)})


def hide(l, labels):
    h = lambda a: a != TAU and any(matches(a, x) for x in labels)
    return Lts(l.n, [(s, TAU if h(a) else a, t) for s, a, t in l.trans], {a for a in l.alphabet if not h(a)})


def prefix(l, p):
    f = lambda a: a if a == TAU else p + "." + a
    return Lts(l.n, [(s, f(a), t) for s, a, t in l.trans], {f(a) for a in l.alphabet})


def compose(parts):
    """The reachable parallel composition (tests/lib/lts_oracle.py), as an Lts."""
    n, trans, _ = lts_oracle.compose([(l.n, l.trans, l.alphabet, False) for l in parts])
    return Lts(n, trans, set().union(*(l.alphabet for l in parts)))


def random_primitive(rng, labels):
    n = rng.randint(1, 3)
    trans = set()
    for s in range(1, n):  # every state reachable from 0
        trans.add((rng.randrange(s), rng.choice(labels), s))
    for s in range(n):
        for a in labels:
            if rng.random() < 0.3:
                trans.add((s, a, rng.randrange(n)))
    used = {a for _, a, _ in trans}
    # every local process without moves is STOP, and LTSA compiles STOP as one state
    dead = [x for x in range(n) if not any(src == x for src, _, _ in trans)]
    if len(dead) > 1:
        keep = dead[0]
        ren, k = {}, 0
        for x in range(n):
            if x in dead[1:]:
                continue
            ren[x] = k
            k += 1
        for x in dead[1:]:
            ren[x] = ren[keep]
        trans = {(ren[a], l, ren[b]) for a, l, b in trans}
        n = k
    return Lts(n, trans, used)


def fsp_primitive(name, l):
    """The LTS as an FSP process with a local process per state (STOP without moves)."""
    def state(s):
        return name if s == 0 else "%s_%d" % (name, s)
    defs = []
    for s in range(l.n):
        moves = [(a, t) for x, a, t in l.trans if x == s]
        body = " | ".join("%s -> %s" % (a, state(t)) for a, t in moves) if moves else None
        defs.append("%s = %s" % (state(s), "(" + body + ")" if body else "STOP"))
    return ",\n  ".join(defs) + ".\n"


def fsp_set(pairs):
    return "{" + ", ".join("%s/%s" % p for p in pairs) + "}"


def report(ismv, cfg):
    out = subprocess.run([ismv, "robustness", cfg, "--format", "json"], capture_output=True, text=True)
    if out.returncode not in (0, 10):
        return None, "exit %d: %s" % (out.returncode, out.stderr.strip()[:400])
    return json.loads(out.stdout), None


def check(ismv, seed, workdir):
    rng = random.Random(seed)
    base = ["a", "b", "c", "d"]
    k = rng.randint(2, 3)
    prims = [random_primitive(rng, rng.sample(base, rng.randint(2, 4))) for _ in range(k)]
    text = "".join(fsp_primitive("P%d" % (i + 1), p) for i, p in enumerate(prims))
    elems, parts = [], []
    for i, p in enumerate(prims):
        how = rng.randrange(3)
        name = "P%d" % (i + 1)
        if how == 1:
            pre = rng.choice(["p", "q"]) + str(i)
            elems.append("%s:%s" % (pre, name))
            parts.append(prefix(p, pre))
        elif how == 2 and p.alphabet:
            old = rng.choice(sorted(p.alphabet))
            pairs = [(rng.choice(["x", "y"] + base), old)]
            elems.append("%s/%s" % (name, fsp_set(pairs)))
            parts.append(relabel(p, pairs))
        else:
            elems.append(name)
            parts.append(p)
    comp = "(" + " || ".join(elems) + ")"
    top_pairs = []
    for old in rng.sample(base, rng.randint(0, 2)):
        top_pairs.append((rng.choice(["y", "z"] + base), old))
    if top_pairs:  # LTSA relabels every component before composing
        comp += fsp_set(top_pairs).join(["/", ""])
        parts = [relabel(p, top_pairs) for p in parts]
    system = compose(parts)
    hidden = rng.sample(sorted(system.alphabet) or ["a"], rng.randint(0, 1)) if system.alphabet else []
    if hidden:
        comp += "\\{" + ", ".join(hidden) + "}"
        system = hide(system, hidden)
    text += "||SYS = %s.\n" % comp
    alpha = sorted(system.alphabet)
    if not alpha:
        return None
    # an environment and a property over some of the composite's labels
    el = [a for a in alpha if rng.random() < 0.7] or alpha[:1]
    ne = rng.randint(1, 3)
    etrans = {(rng.randrange(s), rng.choice(el), s) for s in range(1, ne)}
    etrans |= {(s, a, rng.randrange(ne)) for s in range(ne) for a in el if rng.random() < 0.4}
    env = Lts(ne, etrans, {a for _, a, _ in etrans})
    pl = [a for a in el if rng.random() < 0.6] or el[:1]
    prop = Lts(2, {(s, a, rng.randrange(2)) for s in range(2) for a in pl if rng.random() < 0.7}, pl)
    if not prop.trans or not env.trans:
        return None
    with open(os.path.join(workdir, "m.lts"), "w") as f:
        f.write(text)
    for name, l in (("m.aut", system), ("e.aut", env), ("p.aut", prop)):
        with open(os.path.join(workdir, name), "w") as f:
            f.write(lts_oracle.aut(l.n, l.trans))
    for sysfile, cfg in (("m.lts", "fsp.yaml"), ("m.aut", "aut.yaml")):
        with open(os.path.join(workdir, cfg), "w") as f:
            f.write("kind: robustness\nsystem: [%s]\nenvironment: e.aut\nproperty: p.aut\n" % sysfile)
    problems = []
    rf, err = report(ismv, os.path.join(workdir, "fsp.yaml"))
    if err:
        return ["FSP: " + err]
    ra, err = report(ismv, os.path.join(workdir, "aut.yaml"))
    if err:
        return [".aut: " + err]
    got = (rf["system"]["states"], rf["system"]["transitions"])
    if got != (system.n, len(system.trans)):
        problems.append("system: ismv %d states %d transitions, oracle %d, %d" % (got + (system.n, len(system.trans))))
    interface = sorted(system.alphabet & env.alphabet)
    if sorted(rf["interface"]) != interface:
        problems.append("interface: ismv %s, oracle %s" % (sorted(rf["interface"]), interface))
    if {a for _, a, _ in system.trans if a != TAU} != system.alphabet:
        return problems  # an .aut file's alphabet is its transitions' labels: the reports would differ
    for key in ("weakest_assumption", "classes"):
        if rf[key] != ra[key]:
            problems.append("%s: from FSP %s, from the oracle's LTS %s" % (key, rf[key], ra[key]))
    if (rf["normal_violation"] is None) != (ra["normal_violation"] is None):
        problems.append("normal violation: from FSP %s, from the oracle's LTS %s"
                        % (rf["normal_violation"] is not None, ra["normal_violation"] is not None))
    return problems


def main():
    return seeds.run(check, "rfsp")


if __name__ == "__main__":
    sys.exit(main())
