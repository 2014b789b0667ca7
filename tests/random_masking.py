#!/usr/bin/env python3
"""Random explicit models against an independent solution of the masking game.

Usage: random_masking.py ISMV FIRST_SEED COUNT

For each seed it draws a nominal LTS and an implementation LTS (some of its
transitions faulty) over a few labels, writes both in the YAML form of `ismv
masking` (one process, an int variable s for the state, one action per
transition: guard `s == i`, do `s: j`), and compares `masking`, `distance` and
`faults` of `ismv masking --format json` (the strong game, nominal moves played),
of `--no-nominal-match`, of `--fault-answers` (a faulty implementation move may
answer a nominal one, as MaskD's game) and, in the strong game, of `--deadlock-error`
(an implementation state without moves leads to a verifier node with no answer) with
this file's own game (docs/masking.md, "The game
and its value"; Castro, D'Argenio, Demasi, Putruele): refuter nodes (s, t) play every
implementation move (a fault is answered by the masking move M, the nominal state
staying; another move by an equally labelled nominal move) and every nominal move
(answered by an equally labelled non-fault implementation move); a verifier without
an answer loses to ERR; w(ERR) = 1, a refuter node takes the least successor value,
a verifier node the greatest, plus one after a fault; values by iteration from
infinity (Bellman-Ford, as MaskD). Distance 1/w, 0 when w is infinite. Two
models in five get internal (tau) moves and are played in the weak game, on models
saturated here: a tau self-loop on every state, p =a=> q iff p tau* a tau* q for
every non-fault a (tau included), faults unsaturated. Shares no
code with ismv. Exits 1 when some model disagrees (its YAML is kept in a directory
it names).
"""
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import seeds  # noqa: E402 (tests/lib: the seed loop shared by the random tests)

INF = float("inf")


def random_lts(rng, n, labels, density, fault_p=0.0):
    trans = set()
    for s in range(1, n):
        trans.add((rng.randrange(s), rng.choice(labels), s, False))
    for s in range(n):
        for a in labels:
            if rng.random() < density:
                trans.add((s, a, rng.randrange(n), False))
        if rng.random() < fault_p:  # a fault label of its own, or a nominal one
            trans.add((s, rng.choice(["f0", "f1"] + labels), rng.randrange(n), True))
    return sorted(trans)


def yaml_model(name, trans):
    lines = ["  model:", "    processes:", "      P:", "        variables: {s: int}",
             '        initial: "s == 0"', "        actions:" + ("" if trans else " []")]
    for s, a, t, fault in trans:
        if a == "tau":
            lines.append('          - {guard: "s == %d", do: {s: "%d"}, internal: true}' % (s, t))
            continue
        lines.append('          - {label: %s, guard: "s == %d", do: {s: "%d"}%s}'
                     % (a, s, t, ", faulty: true" if fault else ""))
    lines += ["    instances: {p: P}", "    run: [p]"]
    return name + ":\n" + "\n".join(lines) + "\n"


def reachable(trans):
    seen, todo = {0}, [0]
    while todo:
        s = todo.pop()
        for x, _, t, _ in trans:
            if x == s and t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def saturate(trans, states):
    """The weak game's model: a tau self-loop on every state, then p =a=> q iff
    p tau* a tau* q for every non-fault a (tau included); faults as they are."""
    tau = {s: {s} for s in states}
    for s, a, t, f in trans:
        if a == "tau" and not f:
            tau[s].add(t)
    changed = True
    while changed:  # reflexive-transitive closure
        changed = False
        for s in states:
            new = set().union(*(tau[x] for x in tau[s]))
            if new != tau[s]:
                tau[s], changed = new, True
    out = {(s, a, t, True) for s, a, t, f in trans if f}
    out |= {(s, "tau", t, False) for s in states for t in tau[s]}
    for p in states:
        for q in tau[p]:
            for x, a, r, f in trans:
                if x == q and not f and a != "tau":
                    out |= {(p, a, r2, False) for r2 in tau[r]}
    return sorted(out)


def solve(nom, imp, nominal_match, fault_answers=False, deadlock_error=False):
    """w of the initial refuter node (0, 0)."""
    nsucc, isucc = {}, {}
    for s, a, t, _ in nom:
        nsucc.setdefault(s, []).append((a, t))
    for s, a, t, f in imp:
        isucc.setdefault(s, []).append((a, t, f))
    # the game graph from (0, 0): R nodes ('R', s, t); V nodes ('V', s, t, a, side, fault)
    succ, todo = {}, [("R", 0, 0)]
    while todo:
        node = todo.pop()
        if node in succ or node == "ERR":
            continue
        out = []
        if node[0] == "R":
            _, s, t = node
            for a, t2, f in isucc.get(t, []):
                out.append(("V", s, t2, a, "imp", f))
            if nominal_match:
                for a, s2 in nsucc.get(s, []):
                    out.append(("V", s2, t, a, "nom", False))
            if deadlock_error and not isucc.get(t):  # an implementation deadlock: no answer
                out.append(("V", s, t, "", "deadlock", False))
        else:
            _, s, t, a, side, f = node
            if side == "deadlock":
                out = []
            elif f:
                out = [("R", s, t)]  # M: the nominal state stays
            elif side == "imp":
                out = [("R", s2, t) for b, s2 in nsucc.get(s, []) if b == a]
            else:
                out = [("R", s, t2) for b, t2, g in isucc.get(t, []) if b == a and (fault_answers or not g)]
            out = sorted(set(out)) or ["ERR"]
        succ[node] = sorted(set(out))
        todo += [x for x in out if x not in succ]
    w = {n: INF for n in succ}
    w["ERR"] = 1
    changed = True
    while changed:
        changed = False
        for n, out in succ.items():
            if n[0] == "R":
                v = min((w[x] for x in out), default=INF)
            else:
                v = max(w[x] for x in out) + (1 if n[5] else 0)
            if v < w[n]:
                w[n], changed = v, True
    return w[("R", 0, 0)]


def check(ismv, seed, workdir):
    rng = random.Random(seed)
    labels = ["a", "b", "c"][: rng.randint(1, 3)]
    nom = random_lts(rng, rng.randint(1, 3), labels, 0.4)
    if rng.random() < 0.5:  # the implementation: the nominal model with faults and changes
        imp = set(nom)
        imp |= {(rng.randrange(3), rng.choice(["f0", "f1"] + labels), rng.randrange(3), True)
                for _ in range(rng.randint(1, 2))}
        for _ in range(rng.randint(0, 2)):
            imp.add((rng.randrange(3), rng.choice(labels), rng.randrange(3), False))
        imp = sorted(imp)
    else:
        imp = random_lts(rng, rng.randint(1, 4), labels, 0.4, 0.5)
    weak = rng.random() < 0.4  # internal moves, and the weak game
    if weak:
        for model, n in ((nom, 3), (imp, 4)):
            for _ in range(rng.randint(1, 2)):
                model.append((rng.randrange(n), "tau", rng.randrange(n), False))
        nom, imp = sorted(set(nom)), sorted(set(imp))
    # only what the models reach matters; ismv enumerates reachable states
    rn, ri = reachable(nom), reachable(imp)
    nom = [x for x in nom if x[0] in rn]
    imp = [x for x in imp if x[0] in ri]
    if not any(f for *_, f in imp):
        return None
    path = os.path.join(workdir, "m.yaml")
    with open(path, "w") as f:
        f.write("kind: masking\n" + yaml_model("nominal", nom) + yaml_model("implementation", imp))
    problems = []
    lab = lambda ts: [(s, a if a == "tau" else "p." + a, t, f) for s, a, t, f in ts]
    gn, gi = lab(nom), lab(imp)
    if weak:
        gn, gi = saturate(gn, reachable(nom)), saturate(gi, reachable(imp))
    runs = [([], True, False, False), (["--no-nominal-match"], False, False, False),
            (["--fault-answers"], True, True, False)]
    if not weak:  # --deadlock-error is refused in the weak game
        runs.append((["--deadlock-error"], True, False, True))
    for flags, nominal_match, fault_answers, deadlock_error in runs:
        out = subprocess.run([ismv, "masking", path, "--format", "json", "--weak", "true" if weak else "false"]
                             + flags, capture_output=True, text=True)
        if out.returncode not in (0, 10):
            return ["%s exit %d: %s" % (flags, out.returncode, out.stderr.strip()[:400])]
        rep = json.loads(out.stdout)
        w = solve(gn, gi, nominal_match, fault_answers, deadlock_error)
        want = 0 if w == INF else 1 / w
        if rep["masks"] != (w == INF) or abs(rep["distance"] - want) > 1e-12:
            problems.append("%s: ismv masks %s distance %s, oracle w = %s (distance %s)"
                            % (flags or "default", rep["masks"], rep["distance"], w, want))
        if w != INF and rep["faults"] != w - 1:
            problems.append("%s: ismv faults %s, oracle %s" % (flags or "default", rep["faults"], w - 1))
    return problems


def main():
    return seeds.run(check, "rmask")


if __name__ == "__main__":
    sys.exit(main())
