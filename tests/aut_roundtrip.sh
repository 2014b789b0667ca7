#!/usr/bin/env bash
# Round trip through the Aldebaran (.aut) writer and reader: the ABP's
# weakest assumption (10 states, 41 transitions) written by `robustness
# --write-aut` and, independently, as FSP by `--format fsp` must both load
# as the environment of the same system and give the same report: that
# environment is the weakest assumption itself, so the system meets the
# property under it and no deviation is left (0 classes). Likewise the
# Therac-25 design of `robustify --write-aut` and `--format fsp`, as the
# system of the same robustness run. Needs ISMV.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ex=$PWD/examples/robustness/abp

"$ISMV" robustness "$ex/abp.yaml" --format fsp --write-aut "$tmp/wa.aut" >"$tmp/wa.lts" ||
  { echo "robustness --write-aut failed"; exit 1; }
head -1 "$tmp/wa.aut" | grep -qx 'des (0, 41, 10)' || { echo "unexpected .aut header"; head -3 "$tmp/wa.aut"; exit 1; }
for env in wa.aut wa.lts; do
  cat >"$tmp/${env%.*}_${env#*.}.yaml" <<YAML
kind: robustness
system: $ex/abp.lts
environment: $tmp/$env
property: $ex/p.lts
expect: {classes: 0, normal_violation: false, environment_states: 10, environment_transitions: 41,
         assumption_states: 10}
YAML
  "$ISMV" robustness "$tmp/${env%.*}_${env#*.}.yaml" >"$tmp/$env.out" 2>"$tmp/$env.err" ||
    { echo "robustness with the environment $env failed"; cat "$tmp/$env.out" "$tmp/$env.err"; exit 1; }
done
diff -u "$tmp/wa.lts.out" "$tmp/wa.aut.out" || { echo "the .aut and FSP environments differ"; exit 1; }
th=$PWD/examples/robustify/therac25
"$ISMV" robustify "$th/robustify.yaml" --format fsp --write-aut "$tmp/design.aut" >"$tmp/design.lts" ||
  { echo "robustify --write-aut failed"; exit 1; }
for sys in design.aut design.lts; do
  printf 'kind: robustness\nsystem: %s\nenvironment: %s\nproperty: %s\n' "$tmp/$sys" "$th/env0.lts" \
    "$th/p_prop.lts" >"$tmp/th_${sys#*.}.yaml"
  "$ISMV" robustness "$tmp/th_${sys#*.}.yaml" | sed 1d >"$tmp/$sys.out" ||
    { echo "robustness with the system $sys failed"; exit 1; }
done
grep -q '^robustness: ' "$tmp/design.aut.out" || { echo "no robustness report"; cat "$tmp/design.aut.out"; exit 1; }
diff -u "$tmp/design.lts.out" "$tmp/design.aut.out" || { echo "the .aut and FSP designs differ"; exit 1; }
echo ok
