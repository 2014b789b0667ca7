#!/usr/bin/env bash
# Differential test of the two input forms of `ismv masking`: each YAML-form
# example in examples/masking/yaml/ and its MaskD-language twin in
# examples/masking/ must give the same --format json report (distance,
# faults, sizes of both models and of the game, the trace) apart from the
# model names, in the strong and in the weak game. Run by tests/run.sh (one
# test); needs ISMV and python3.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

strip() { # FILE.json: the report without the models' file names (and the config's, the envelope's input)
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d.pop("input")
for side in ("nominal", "implementation"): d["sizes"][side].pop("file")
print(json.dumps(d, indent=1, sort_keys=True))' "$1"
}

status=0
for pair in memory3:memory3 memory3-mixed:memory3 vending:vending nmr3:nmr3; do
  yaml=examples/masking/yaml/${pair%%:*}.yaml
  test=examples/masking/${pair#*:}.yaml
  for weak in false true; do
    "$ISMV" masking "$yaml" --weak $weak --format json >"$tmp/yaml.json" 2>"$tmp/yaml.err"
    rc_yaml=$?
    "$ISMV" masking "$test" --weak $weak --format json >"$tmp/test.json" 2>"$tmp/test.err"
    rc_test=$?
    if [ $rc_yaml != $rc_test ] || [ ! -s "$tmp/yaml.json" ] ||
      ! diff -u <(strip "$tmp/test.json") <(strip "$tmp/yaml.json"); then
      echo "$yaml differs from $test (weak: $weak; exit $rc_yaml vs $rc_test)"
      cat "$tmp/yaml.err"
      status=1
    fi
  done
done
exit $status
