# Sourced by tests/reliability_timeout.sh and tests/reliability_signals.sh
# (not a test itself: tests/run.sh runs tests/*.sh only).
# long_runs_setup DIR writes into DIR inputs on which an analysis runs for
# minutes or more (call it from the repository root):
#   DIR/r.yaml       robustness: five interleaved counters (4.5e7 states):
#                    the composition (with --max-states 100000000)
#   DIR/ring.yaml    envelope: a ring of 16 states, |Δ| = 2^15 maximal deviations
#                    (2 153 found in 3 s of CPU; n = 13 now takes 2.5 s)
#   DIR/m.yaml       masking: BRP N100 with 20000 retransmissions (~1.4e7 states;
#                    with 1000 the strong game (--weak false) took only 0.6 s idle)
#   DIR/fermat.yaml  eventb: an invariant whose proof is Fermat's n = 3 (Z3
#                    cannot decide it)
#   DIR/wf.yaml      check: the wall-follower at bound 12, mode ideal
# and inputs on which one phase that used not to poll the stop request runs
# for minutes (each at most ~50 MB):
#   DIR/sat.yaml     masking: weak-game saturation of a tau-cycle of 800 states
#                    with a visible move back to its start (800^3 moves before
#                    deduplication; 400 states took 12.6 s idle)
#   DIR/qe.yaml      eventb: the quantifier elimination of the feasibility check
#                    (integers, divisibility; Z3's qe runs for minutes)
#   DIR/rmin.yaml    robustness: the minimisations of the weakest assumption,
#                    a 20001-state counter with a visible wrap (quadratic
#                    refinement; 5001 states took 10.7 s idle)
#   DIR/fmin.yaml    robustness: such a counter of 60001 states declared
#                    `minimal` in FSP (minimised while compiling: 18.5 s idle
#                    since the eighth session's partition, which minimises the
#                    20001-state one within the 1 s limit)
# and inputs on which one product that used not to poll runs for minutes
# (a 20001-state counter a:C composed with another over other labels or of
# another period: ~4e8 states; stopped after 3 s wall, 0.8-0.9 s CPU on a
# loaded machine, each took 120-150 MB):
#   DIR/wa.yaml      robustness: the weakest assumption's product M || P_err
#                    (P a counter over b.*, which E blocks, so M || E || P is
#                    small)
#   DIR/delta.yaml   robustness --no-minimize: a comparison's Delta product
#                    W_A || W_B,err (counters of periods 20001 and 19999; E
#                    allows only a.reset, so M || E || P is one state)
#   DIR/plant.json   robustify: the plant det(M) || det(E') || P_err (E' a
#                    counter over b.*)
#   DIR/explain.yaml robustness: the explanation product M || D (D a counter
#                    over c.* beside a glitch that lets a.tick through; E and
#                    W are one state each; 3 instead of 20000: explained as
#                    "glitch, a.tick")
#   DIR/brute.yaml   envelope --algorithm brute-force: 2^15 deviation sets of a
#                    3-state ring, each composed with a 20001-state controller
# and inputs on which a subset construction that used not to poll runs for
# seconds (the FSP compiler's, robustify's OASIS abstractions):
#   DIR/det.yaml     robustness: an FSP `deterministic` process whose tau-closures
#                    are quadratic (J || S hiding go: 400 layers of 50 states, each
#                    state with a tau to every state of the next layer; 10^6
#                    transitions, closures of 2e8 states walking 10^10 edges;
#                    main's binary: 12.5 s CPU, 850 MB)
#   DIR/prop.yaml    robustness: a nondeterministic FSP `property` that guesses
#                    which a is 25 actions before `done` (2^26 subsets; main's
#                    binary ran into the 30 s grace)
#   DIR/oasis.json   robustify --method oasis: the same J || S, not hidden and
#                    ending in STOP, so its first abstraction (everything
#                    hidden) has the same quadratic tau-closures (main's binary:
#                    12.6 s CPU, 870 MB, before it polled again)
# In the tree: examples/robustify/pump3/config-pareto.json, pump-3 of
# Fortis' thesis examples, Pareto (Fortis: over 10 minutes; ismv: 2.2 s CPU,
# docs/robustify.md).
. "$(dirname "${BASH_SOURCE[0]}")/ring.sh"

long_runs_setup() {
  local dir=$1 n=16 i
  cat >"$dir/sys.lts" <<'EOF'
C(N=9) = C[0],
C[i:0..N] = (tick -> C[(i+1)%(N+1)] | reset -> C[0]).
||SYS = (a:C(29) || b:C(30) || c:C(31) || d:C(37) || e:C(41)).
EOF
  echo 'ENV = (a.tick -> ENV | a.reset -> ENV).' >"$dir/env.lts"
  echo 'property P = (a.tick -> P | a.reset -> P).' >"$dir/p.lts"
  printf 'kind: robustness\nsystem: sys.lts\nenvironment: env.lts\nproperty: p.lts\n' >"$dir/r.yaml"
  ring_write "$dir" "$n"
  sed 's/MAX == 20/MAX == 20000/' examples/masking/faulty/brp/brpN100M20.test >"$dir/brpN100M20000.test"
  cp examples/masking/nominal/brp/brpN100.test "$dir/"
  printf 'kind: masking\nnominal: brpN100.test\nimplementation: brpN100M20000.test\n' >"$dir/m.yaml"
  cat >"$dir/fermat.yaml" <<'EOF'
kind: eventb
name: fermat
variables:
  tn: {type: enum, values: [p, c]}
  x: {type: int}
  y: {type: int}
  z: {type: int}
invariant: "x > 0 and y > 0 and z > 0 and x*x*x + y*y*y != z*z*z"
initial: "tn == c and x == 1 and y == 1 and z == 1"
plant:
  - {name: step, params: {d: int}, guard: "true", action: "tn' == p and x' == x and y' == y and z' == z"}
controller:
  - {name: move, params: {d: int}, guard: "true", action: "tn' == c and x' == x + 1 and y' == y and z' == z"}
EOF
  sed -e 's/^verify:.*//' -e 's/^expect:.*//' examples/robotcar/wall-follower.yaml >"$dir/wf.yaml"
  local side
  {
    printf 'kind: masking\n'
    for side in nominal implementation; do
      printf '%s:\n  model:\n    processes:\n      P:\n        variables: {x: int}\n        actions:\n' "$side"
      [ $side = implementation ] &&
        printf '          - {label: up, internal: true, guard: "x < 799", do: {x: "x + 1"}}\n          - {label: down, internal: true, guard: "x > 0", do: {x: "x - 1"}}\n'
      printf '          - {label: a, do: {x: "0"}}\n    instances: {p: P}\n    run: [p]\n'
    done
  } >"$dir/sat.yaml"
  cat >"$dir/qe.yaml" <<'EOF'
kind: eventb
name: qe
variables:
  x1: {type: int}
  x2: {type: int}
  x3: {type: int}
invariant: "true"
initial: "true"
plant: []
controller:
  - {name: go, guard: "true", action: "x1' >= 0 and x1' <= 845 and (65 * x1' - x1) % 66 == 1 and x2' >= 0 and x2' <= 390 and (30 * x2' - x2) % 32 == 1 and x3' >= 0 and x3' <= 1196 and (92 * x3' - x3) % 95 == 1 and 4 * x1' + 7 * x2' + 10 * x3' == 7777"}
EOF
  for side in chain minimal; do
    {
      printf 'C(N=9) = C[0],\nC[i:0..N] = (when (i < N) tick -> C[i+1] | when (i == N) wrap -> C[0] | reset -> C[0]).\n'
      [ $side = minimal ] && printf 'minimal '
      printf '||SYS = (a:C(%s)).\n' "$([ $side = minimal ] && echo 60000 || echo 20000)"
    } >"$dir/$side.lts"
  done
  echo 'ENV = (a.tick -> ENV | a.reset -> ENV | a.wrap -> ENV).' >"$dir/cenv.lts"
  echo 'property P = (a.tick -> P | a.reset -> P | a.wrap -> P).' >"$dir/cp.lts"
  printf 'kind: robustness\nsystem: chain.lts\nenvironment: cenv.lts\nproperty: cp.lts\n' >"$dir/rmin.yaml"
  printf 'kind: robustness\nsystem: minimal.lts\nenvironment: cenv.lts\nproperty: cp.lts\n' >"$dir/fmin.yaml"
  printf 'verify: {bound: 12, mode: ideal}\n' >>"$dir/wf.yaml"
  local who period
  for who in a:20000 b:20000 a2:19998; do
    period=${who#*:}
    printf 'C(N=9) = C[0],\nC[i:0..N] = (tick -> C[(i+1)%%(N+1)] | reset -> C[0]).\n||SYS = (%s:C(%s)).\n' \
      "${who:0:1}" "$period" >"$dir/count-${who%%:*}.lts"
  done
  sed 's/^||SYS/property ||SYS/' "$dir/count-b.lts" >"$dir/count-b-prop.lts"
  echo 'ENV = (a.tick -> ENV | a.reset -> ENV) + {b.tick, b.reset}.' >"$dir/wa-env.lts"
  echo 'ENV = (a.reset -> ENV) + {a.tick}.' >"$dir/reset-env.lts"
  echo 'property P = (a.tick -> P | a.reset -> P).' >"$dir/a-prop.lts"
  printf 'kind: robustness\nsystem: count-a.lts\nenvironment: wa-env.lts\nproperty: count-b-prop.lts\n' \
    >"$dir/wa.yaml"
  printf 'kind: robustness\nsystem: count-a.lts\nenvironment: reset-env.lts\nproperty: a-prop.lts\n' >"$dir/delta.yaml"
  printf 'compare: {system: count-a2.lts}\n' >>"$dir/delta.yaml"
  printf '{"sys": ["count-a.lts"], "env": [], "dev": ["count-b.lts"], "safety": ["a-prop.lts"],\n' >"$dir/plant.json"
  printf ' "method": "supervisory", "options": {"progress": [], "controllableMap": {"1": ["a.tick"]},\n' >>"$dir/plant.json"
  printf ' "observableMap": {"0": ["a.tick", "a.reset"]}}}\n' >>"$dir/plant.json"
  {
    printf 'C(N=9) = C[0],\nC[i:0..N] = (tick -> C[(i+1)%%(N+1)] | reset -> C[0]).\n'
    printf 'D = (a.reset -> D | glitch -> T),\nT = (a.tick -> D | a.reset -> D).\n||DEV = (c:C(20000) || D).\n'
  } >"$dir/explain-dev.lts"
  printf 'kind: robustness\nsystem: count-a.lts\nenvironment: reset-env.lts\nproperty: a-prop.lts\n' >"$dir/explain.yaml"
  printf 'deviation: explain-dev.lts\nfaults: [glitch]\n' >>"$dir/explain.yaml"
  printf 'E0 = (a -> E1),\nE1 = (a -> E2),\nE2 = (a -> E0) + {b}.\n' >"$dir/brute-env.lts"
  printf 'C(N=9) = C[0],\nC[i:0..N] = (a -> C[(i+1)%%(N+1)] | b -> C[0]).\n||CTRL = C(20000).\n' >"$dir/brute-ctrl.lts"
  echo 'property P = (a -> P | b -> P).' >"$dir/brute-p.lts"
  printf 'kind: envelope\nenvironment: brute-env.lts\ncontroller: brute-ctrl.lts\nproperty: brute-p.lts\n' >"$dir/brute.yaml"
  printf 'algorithm: brute-force\n' >>"$dir/brute.yaml"
  for side in dag dagsys; do
    {
      printf 'const W = 49\nconst M = 400\nJ = J[0],\n'
      printf 'J[j:0..M] = (when (j < M) go[k:0..W] -> J[j+1] | when (j == M) done -> STOP).\n'
      printf 'S = S[0],\nS[i:0..W] = (go[k:0..W] -> S[k] | done -> S[0]).\n'
      if [ $side = dag ]; then printf 'deterministic ||D = (J || S)\\{go}.\n'; else printf '||D = (J || S).\n'; fi
    } >"$dir/$side.lts"
  done
  printf '{"sys": ["dagsys.lts"], "env": [], "dev": ["done-env.lts"], "safety": ["done-p.lts"], "method": "oasis",\n' \
    >"$dir/oasis.json"
  printf ' "options": {"progress": [], "controllableMap": {"1": ["done"]}, "observableMap": {"0": ["done"]}}}\n' \
    >>"$dir/oasis.json"
  echo 'ENV = (done -> ENV).' >"$dir/done-env.lts"
  echo 'property P = (done -> P).' >"$dir/done-p.lts"
  printf 'kind: robustness\nsystem: dag.lts\nenvironment: done-env.lts\nproperty: done-p.lts\n' >"$dir/det.yaml"
  cat >"$dir/guess-p.lts" <<'EOF2'
property P = (a -> P | b -> P | a -> Q[1]),
Q[i:1..26] = (when (i < 26) a -> Q[i + 1] | when (i < 26) b -> Q[i + 1] | when (i == 26) done -> P).
EOF2
  echo 'SYS = (a -> SYS | b -> SYS | done -> SYS).' >"$dir/ab.lts"
  echo 'ENV = (a -> ENV | b -> ENV | done -> ENV).' >"$dir/ab-env.lts"
  printf 'kind: robustness\nsystem: ab.lts\nenvironment: ab-env.lts\nproperty: guess-p.lts\n' >"$dir/prop.yaml"
}
