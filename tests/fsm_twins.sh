#!/usr/bin/env bash
# The DESops .fsm reader against the FSP compiler: fortis-core's oyster
# example ships its system and property both as .fsm files
# (config-robustness.json) and as FSP twins (twins.yaml); both must give the
# same robustness report (classes, traces, explanations; Fortis's oyster
# numbers 792 classes, 144 explained).
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
D=examples/robustness/fortis/oyster-fsm
traces() { "$ISMV" robustness "$1" --format json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["classes"], d["explained"], d["system"]["states"], d["system"]["transitions"])
print(json.dumps(d["traces"]))'; }
a=$(traces $D/config-robustness.json) || exit 1
b=$(traces $D/twins.yaml) || exit 1
if [ "$a" != "$b" ]; then
  echo "the .fsm files and their FSP twins differ:"
  diff <(echo "$a" | head -1) <(echo "$b" | head -1)
  exit 1
fi
[ "$(echo "$a" | head -1)" = "792 144 576 6240" ] || { echo "unexpected: $(echo "$a" | head -1)"; exit 1; }
