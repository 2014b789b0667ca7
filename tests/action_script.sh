#!/usr/bin/env bash
# The GitHub Action's check step (.ci/action.sh check), run here as the runner
# would: globs expand with globstar, SARIF and JUnit are written, the exit code
# is recorded in $GITHUB_OUTPUT and the step itself succeeds; sarif-complete
# says whether the SARIF may be uploaded (false for an inconclusive file, here
# one stopped by --timeout, so its open alerts are not closed).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GITHUB_OUTPUT=$tmp/out INPUT_SARIF=$tmp/r.sarif INPUT_JUNIT=$tmp/r.xml INPUT_JOBS=2
INPUT_FILES="tests/models/**/explorer-b1-*.yaml examples/robustness/abp/abp.yaml" bash .ci/action.sh check >"$tmp/log" 2>&1
grep -qx 'exit-code=0' "$GITHUB_OUTPUT"
grep -qx 'sarif-complete=true' "$GITHUB_OUTPUT"
grep -q 'checked 4 file(s), exit code 0' "$tmp/log"
python3 -c "
import json,sys; s=json.load(open(sys.argv[1])); assert s['runs'][0]['results']==[], s" "$INPUT_SARIF"
python3 -c "
import xml.dom.minidom as m,sys; d=m.parse(sys.argv[1]); assert len(d.getElementsByTagName('testcase'))==4" "$INPUT_JUNIT"
: >"$GITHUB_OUTPUT"
INPUT_FILES="tests/models/verify/errors/expect-fails.yaml" bash .ci/action.sh check >"$tmp/log" 2>&1
grep -qx 'exit-code=10' "$GITHUB_OUTPUT"
grep -qx 'sarif-complete=true' "$GITHUB_OUTPUT"
python3 -c "
import json,sys; s=json.load(open(sys.argv[1])); r=s['runs'][0]['results']; assert [x['ruleId'] for x in r]==['ISMV-CHECK-EXPECT'], r" "$INPUT_SARIF"
: >"$GITHUB_OUTPUT"
INPUT_FILES="no/such/*.yaml" bash .ci/action.sh check >"$tmp/log" 2>&1
grep -qx 'exit-code=1' "$GITHUB_OUTPUT"
grep -qx 'sarif-complete=false' "$GITHUB_OUTPUT"
# an inconclusive file beside a failing one: exit 10, but the log is incomplete
: >"$GITHUB_OUTPUT"
. tests/lib/long_runs.sh
long_runs_setup "$tmp"
INPUT_FILES="$tmp/wf.yaml tests/models/verify/errors/expect-fails.yaml" INPUT_ARGS="--timeout 1" \
  timeout 60 bash .ci/action.sh check >"$tmp/log" 2>&1
grep -qx 'exit-code=10' "$GITHUB_OUTPUT"
grep -qx 'sarif-complete=false' "$GITHUB_OUTPUT" || { cat "$GITHUB_OUTPUT"; exit 1; }
python3 -c "
import json,sys; s=json.load(open(sys.argv[1])); inv=s['runs'][0]['invocations'][0]; assert inv['executionSuccessful'] is False, inv" "$INPUT_SARIF"
echo "action script: ok"
