#!/usr/bin/env python3
"""Property check of one `ismv robustify` solution, independent of its
synthesis (used by tests/lib/robustify_thesis.py).

usage: robustify_oracle.py REPORT.json CONFIG.json DE.aut [ME.aut]

REPORT.json  robustify's --format json report (its first solution is checked)
CONFIG.json  the Fortis config it ran (progress, preferred, the cost maps)
DE.aut       the closed loop D || E' (D the design printed with --fsp), as an
             Aldebaran LTS, deterministic
ME.aut       the original M || E' (absent for OASIS, whose design is an
             abstraction of M rather than a restriction of it)

Checked on these LTSs with this file's own code (set-of-states walks only):
  * progress (Fortis's nonblocking): from every reachable state of D || E',
    with the set of progress actions seen so far, a state where every
    progress action has been seen stays reachable;
  * the preferred behaviours the report says are kept are exactly those
    D || E' accepts as a projection (Fortis's acceptsSubWord);
  * with ME.aut: D || E' is a restriction of M || E' (every trace of the
    first is one of the second), every action M || E' offers that D || E'
    refuses after the same trace is in the solution's controllable set, and
    the supervisor distinguishes only observable actions: L(D||E') =
    L(M||E') ∩ P⁻¹(P(L(D||E'))) with P the projection on the solution's
    observable set (normality, as Supremica's NONBLOCKING_CONTROLLABLE_NORMAL
    that Fortis calls);
  * the cost is the sum of the weights of the solution's controllable and
    observable actions, with Fortis's computeWeights (recomputed here from
    the config), and equals the reported cost.
Prints one line per failure and exits 1 on any; names are compared in
Fortis's spelling (line[1].x read as line.1.x).
"""
import json
import re
import sys


def norm(a):
    return re.sub(r"\[(\w+)\]", r".\1", a)


def read_aut(path):
    with open(path) as f:
        head = f.readline()
        m = re.match(r"des\s*\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)", head)
        init, n = int(m.group(1)), int(m.group(3))
        succ = [dict() for _ in range(n)]
        for line in f:
            m = re.match(r'\(\s*(\d+)\s*,\s*"?([^"]*?)"?\s*,\s*(\d+)\s*\)', line.strip())
            if not m:
                continue
            s, a, d = int(m.group(1)), norm(m.group(2)), int(m.group(3))
            if a in succ[s] and succ[s][a] != d:
                raise SystemExit("%s: not deterministic at state %d on %s" % (path, s, a))
            succ[s][a] = d
    return init, succ


def reachable(start, step):
    seen, todo = {start}, [start]
    while todo:
        x = todo.pop()
        for _, y in step(x):
            if y not in seen:
                seen.add(y)
                todo.append(y)
    return seen


def weights(cfg):
    o = cfg.get("options", {})
    maps = [o.get("preferredMap", {}), o.get("controllableMap", {}), o.get("observableMap", {})]
    ctrl, obs, total = {}, {}, 0
    for p in ("0", "1", "2", "3"):
        cur = total + 1
        for i, m in enumerate(maps):
            for item in m.get(p, []):
                w = 0 if p == "0" else cur
                if i == 1:
                    ctrl[norm(item)] = w
                elif i == 2:
                    obs[norm(item)] = w
                if p != "0":
                    total += cur
    return ctrl, obs


def check(report, cfg, de_path, me_path=None):
    """The failures (strings) of report's first solution; [] when it holds."""
    de = read_aut(de_path)
    me = read_aut(me_path) if me_path else None
    fails = []
    sol = report["solutions"][0]
    C = {norm(a) for a in sol["controllable"]}
    O = {norm(a) for a in sol["observable"]}
    opts = cfg.get("options", {})
    progress = [norm(a) for a in opts.get("progress", [])]
    init, succ = de

    # progress: states (q, seen-mask); backward reachability of the full mask
    full = (1 << len(progress)) - 1
    bit = {a: 1 << i for i, a in enumerate(progress)}

    def step(x):
        q, m = x
        return [(a, (d, m | bit.get(a, 0))) for a, d in succ[q].items()]

    states = reachable((init, 0), step)
    pred = {x: [] for x in states}
    for x in states:
        for _, y in step(x):
            pred[y].append(x)
    good = {x for x in states if x[1] == full}
    todo = list(good)
    while todo:
        y = todo.pop()
        for x in pred[y]:
            if x not in good:
                good.add(x)
                todo.append(x)
    if len(good) != len(states):
        fails.append("progress: %d of %d reachable states of D || E' cannot reach one where %s have all occurred"
                     % (len(states) - len(good), len(states), ", ".join(progress) or "(none)"))

    # preferred behaviours: projection on the behaviour's alphabet equals it
    pref = []
    for p in ("0", "1", "2", "3"):
        pref += opts.get("preferredMap", {}).get(p, [])
    pref += opts.get("preferred", [])
    accepted = []
    for i, w in enumerate(pref):
        w = [norm(a) for a in w]
        alpha = set(w)

        def wstep(x, w=w, alpha=alpha):
            q, k = x
            out = []
            for a, d in succ[q].items():
                if a not in alpha:
                    out.append((a, (d, k)))
                elif k < len(w) and w[k] == a:
                    out.append((a, (d, k + 1)))
            return out

        if any(k == len(w) for _, k in reachable((init, 0), wstep)):
            accepted.append(i)
    if sorted(sol["kept"]) != accepted:
        fails.append("preferred: the report keeps %s, D || E' accepts %s" % (sorted(sol["kept"]), accepted))

    if me:
        minit, msucc = me
        pairs = reachable((init, minit), lambda x: [(a, (d, msucc[x[1]][a])) for a, d in succ[x[0]].items()
                                                     if a in msucc[x[1]]])
        for q, m in pairs:
            for a in succ[q]:
                if a not in msucc[m]:
                    fails.append("restriction: D || E' does %s where M || E' cannot" % a)
            for a in msucc[m]:
                if a not in succ[q] and a not in C:
                    fails.append("controllability: %s is refused but not controllable" % a)
        # normality: the observer of D || E' (sets of its states, closed under
        # unobservable moves) walked beside M || E' allows nothing D || E' refuses
        def close(qs):
            qs, todo = set(qs), list(qs)
            while todo:
                q = todo.pop()
                for a, d in succ[q].items():
                    if a not in O and d not in qs:
                        qs.add(d)
                        todo.append(d)
            return frozenset(qs)

        def nstep(x):
            m, obs, q = x
            out = []
            if q is None:
                return out
            for a, md in msucc[m].items():
                if a in O:
                    nxt = close({succ[s][a] for s in obs if a in succ[s]})
                    if not nxt:
                        continue
                else:
                    nxt = obs
                out.append((a, (md, nxt, succ[q].get(a))))
            return out

        for m, obs, q in reachable((minit, close({init}), init), nstep):
            if q is None:
                fails.append("observation: a trace D || E' refuses looks like (on the observable actions) one it allows")
                break
        fails = list(dict.fromkeys(fails))

    if report.get("method") != "oasis" and report.get("method") != "simple":
        cw, ow = weights(cfg)
        cost = sum(cw.get(a, 0) for a in C) + sum(ow.get(a, 0) for a in O)
        if cost != sol["cost"]:
            fails.append("cost: reported %s, Fortis's weights give %d" % (sol["cost"], cost))
    return fails


if __name__ == "__main__":
    fails = check(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3],
                  sys.argv[4] if len(sys.argv) > 4 else None)
    for f in fails:
        print(f)
    sys.exit(1 if fails else 0)
