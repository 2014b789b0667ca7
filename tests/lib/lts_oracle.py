"""LTS semantics for the random differential tests (tests/random_robustness.py,
random_envelope.py, random_fsp.py), written from LTSA's definitions and sharing
no code with ismv: parallel composition with completed properties, tau-closure
and the subset construction. An LTS is given by its number of states n and its
transitions (src, label, dst), state 0 initial; TAU is the internal label."""
from collections import deque

TAU = "tau"


def successors(n, trans):
    succ = [[] for _ in range(n)]
    for s, a, t in trans:
        succ[s].append((a, t))
    return succ


def compose(parts):
    """The reachable parallel composition of parts, each (n, transitions, alphabet,
    completed), from the tuple of initial states: a label synchronises the parts
    whose alphabet has it, the others and tau interleave; a completed part (a
    property) that cannot take a label of its alphabet the others take leads to
    the error state. Returns (number of states, sorted transitions, error state or
    -1)."""
    succ = [successors(n, trans) for n, trans, _, _ in parts]
    labels = sorted(set().union(*(p[2] for p in parts)))
    init = tuple(0 for _ in parts)
    idx, q, edges = {init: 0}, deque([init]), set()
    while q:
        st = q.popleft()
        moves = [(TAU, st[:i] + (t,) + st[i + 1:]) for i in range(len(parts))
                 for a, t in succ[i][st[i]] if a == TAU]
        for a in labels:
            movers = [i for i, p in enumerate(parts) if a in p[2]]
            targets = {i: [t for b, t in succ[i][st[i]] if b == a] for i in movers}
            if any(not targets[i] and not parts[i][3] for i in movers):
                continue  # a part that must take a cannot
            if any(not targets[i] for i in movers):
                moves.append((a, "ERR"))  # every other part takes a, a property cannot
                continue
            opts = [()]
            for i in range(len(parts)):
                opts = [o + (t,) for o in opts for t in (targets[i] if i in movers else [st[i]])]
            moves += [(a, o) for o in opts]
        for a, o in moves:
            if o not in idx:
                idx[o] = len(idx)
                if o != "ERR":
                    q.append(o)
            edges.add((idx[st], a, idx[o]))
    return len(idx), sorted(edges), idx.get("ERR", -1)


def closure(succ, states):
    """The states tau-reachable from states (a frozenset)."""
    out, stack = set(states), list(states)
    while stack:
        s = stack.pop()
        for a, t in succ[s]:
            if a == TAU and t not in out:
                out.add(t)
                stack.append(t)
    return frozenset(out)


def determinise(n, edges, init, visible, err=-1):
    """Subset construction from init with every label outside visible internal;
    a subset holding err absorbs (it is not expanded). Returns (the subsets,
    a dict (i, label) -> j, the indices of the subsets holding err)."""
    succ = [[] for _ in range(n)]
    for s, a, t in edges:
        succ[s].append((a if a in visible else TAU, t))
    start = closure(succ, [init])
    idx, subsets, delta = {start: 0}, [start], {}
    q = deque([start])
    while q:
        S = q.popleft()
        if err >= 0 and err in S:
            continue
        for a in sorted(visible):
            T = closure(succ, [t for s in S for b, t in succ[s] if b == a])
            if not T:
                continue
            if T not in idx:
                idx[T] = len(subsets)
                subsets.append(T)
                q.append(T)
            delta[(idx[S], a)] = idx[T]
    errs = {i for i, S in enumerate(subsets) if err >= 0 and err in S}
    return subsets, delta, errs


def random_transitions(rng, n, labels, density, tau=False):
    """Transitions over n states: each (state, label) with probability density to a
    random state, then a chain from lower states so that every state is reachable
    from 0. Sorted, without repeats."""
    trans = set()
    for s in range(n):
        for a in labels + ([TAU] if tau else []):
            if rng.random() < density:
                trans.add((s, a, rng.randrange(n)))
    for s in range(1, n):
        trans.add((rng.randrange(s), rng.choice(labels), s))
    return sorted(trans)


def aut(n, trans):
    """The Aldebaran (.aut) text of an LTS with initial state 0."""
    return "des (0, %d, %d)\n" % (len(trans), n) + "".join('(%d, "%s", %d)\n' % t for t in trans)
