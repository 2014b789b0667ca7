# The envelope ring (bench/envelope.sh): an environment cycling through n
# states by a with b enabled everywhere, a controller doing both, and a
# property that forbids n a's without a b between them; it has
# |Δ| = 2^(n-1) maximal robust deviations.
# ring_write DIR N [EXPECT_DELTA]: writes DIR/ring.yaml and its three FSP
# files DIR/ring.{env,ctrl,p}.lts; with EXPECT_DELTA the config expects that |Δ|.
ring_write() {
  local dir=$1 n=$2 i
  {
    printf 'E0 = (a -> E1)'
    for ((i = 1; i < n; i++)); do printf ',\nE%d = (a -> E%d)' "$i" $(((i + 1) % n)); done
    printf ' + {b}.\n'
  } >"$dir/ring.env.lts"
  echo 'C = (a -> C | b -> C).' >"$dir/ring.ctrl.lts"
  {
    printf 'property P = Q0,\nQ0 = (a -> Q1 | b -> Q0)'
    for ((i = 1; i < n - 1; i++)); do printf ',\nQ%d = (a -> Q%d | b -> Q0)' "$i" $((i + 1)); done
    printf ',\nQ%d = (a -> Q0).\n' $((n - 1))
  } >"$dir/ring.p.lts"
  printf 'kind: envelope\nenvironment: ring.env.lts\ncontroller: ring.ctrl.lts\nproperty: ring.p.lts\n' >"$dir/ring.yaml"
  if [ $# -ge 3 ]; then printf 'expect: {delta_size: %s}\n' "$3" >>"$dir/ring.yaml"; fi
}
