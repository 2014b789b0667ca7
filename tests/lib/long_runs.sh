# Sourced by tests/reliability_timeout.sh and tests/reliability_signals.sh
# (not a test itself: tests/run.sh runs tests/*.sh only).
# long_runs_setup DIR writes into DIR inputs on which an analysis runs for
# minutes or more (call it from the repository root):
#   DIR/r.yaml       robustness: five interleaved counters (4.5e7 states):
#                    the composition (with --max-states 100000000)
#   DIR/ring.yaml    envelope: a ring of 13 states, |Δ| = 2^12 maximal deviations
#   DIR/m.yaml       masking: BRP N100 with 20000 retransmissions (~1.4e7 states;
#                    with 1000 the strong game (--weak false) took only 0.6 s idle)
#   DIR/fermat.yaml  eventb: an invariant whose proof is Fermat's n = 3 (Z3
#                    cannot decide it)
#   DIR/wf.yaml      check: the wall-follower at bound 12, mode ideal
# In the tree: tests/data/robustify_voting2/config-pareto.json, voting-4-4
# of Fortis' thesis examples, Pareto (over 10 minutes, docs/robustify.md).
long_runs_setup() {
  local dir=$1 n=13 i
  cat >"$dir/sys.lts" <<'EOF'
C(N=9) = C[0],
C[i:0..N] = (tick -> C[(i+1)%(N+1)] | reset -> C[0]).
||SYS = (a:C(29) || b:C(30) || c:C(31) || d:C(37) || e:C(41)).
EOF
  echo 'ENV = (a.tick -> ENV | a.reset -> ENV).' >"$dir/env.lts"
  echo 'property P = (a.tick -> P | a.reset -> P).' >"$dir/p.lts"
  printf 'kind: robustness\nsystem: sys.lts\nenvironment: env.lts\nproperty: p.lts\n' >"$dir/r.yaml"
  {
    printf 'E0 = (a -> E1)'
    for ((i = 1; i < n; i++)); do printf ',\nE%d = (a -> E%d)' "$i" $(((i + 1) % n)); done
    printf ' + {b}.\n'
  } >"$dir/ring.lts"
  echo 'C = (a -> C | b -> C).' >"$dir/ctrl.lts"
  {
    printf 'property P = Q0,\nQ0 = (a -> Q1 | b -> Q0)'
    for ((i = 1; i < n - 1; i++)); do printf ',\nQ%d = (a -> Q%d | b -> Q0)' "$i" $((i + 1)); done
    printf ',\nQ%d = (a -> Q0).\n' $((n - 1))
  } >"$dir/ringp.lts"
  printf 'kind: envelope\nenvironment: ring.lts\ncontroller: ctrl.lts\nproperty: ringp.lts\n' >"$dir/ring.yaml"
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
  printf 'verify: {bound: 12, mode: ideal}\n' >>"$dir/wf.yaml"
}
