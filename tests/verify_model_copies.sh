#!/usr/bin/env bash
# Golden models under tests/models/verify/ that open with
# "# Copy of examples/robotcar/X.yaml" must stay copies of that example
# (everything but comment lines at the top, `verify:` and `expect:`), so a
# change to an example cannot leave its recorded counts testing an old model.
# Run by tests/run.sh (one test).
set -u
cd "$(dirname "$0")/.."
status=0
for f in tests/models/verify/*.yaml; do
  src=$(sed -n '1s/^# Copy of \([^ ]*\.yaml\) .*/\1/p' "$f")
  [ -n "$src" ] || continue
  if [ ! -f "$src" ]; then echo "$f: copy of missing $src" >&2; status=1; continue; fi
  if ! diff <(grep -v '^verify:' "$src") <(sed '/^kind:/,$!d' "$f" | grep -v '^verify:\|^expect:') >/dev/null; then
    echo "$f is no longer a copy of $src: update it and its expect: counts" >&2
    status=1
  fi
done
exit $status
