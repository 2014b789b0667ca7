#!/usr/bin/env bash
# The threads of `ismv verify` under ThreadSanitizer. `make tsan` builds build/tsan/ismv and
# runs this (.ci/run does); `make check` does not, it has no TSan build. Every way verify
# uses threads is run on a small bound: the default report (the one-part top-K search with
# its ranking threads), the full search with the ranking workers, the split search, the
# streamed `--all --format json` report, the unranked reports that keep only what they
# print (apps/verify_keep.c), a shard, and runs stopped by --timeout after they
# found counterexamples (the watch threads of cli.c and smt.c). Each run must end with its
# documented exit code, its output must equal the release binary's (when ISMV is set, and
# the output does not depend on timing), and ThreadSanitizer must report nothing. Z3, GSL
# and libyaml are not instrumented: a race inside them is not seen here.
set -u
cd "$(dirname "$0")/../.."
TSAN_ISMV=${TSAN_ISMV:-build/tsan/ismv}
[ -x "$TSAN_ISMV" ] || { echo "tsan.sh: $TSAN_ISMV not built (make MODE=tsan)" >&2; exit 1; }
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
bound=${TSAN_BOUND:-4}
status=0
err=$(mktemp)
out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT

run() { # WANT_RC ARGS... : one run under TSan; WANT_RC "10~": exit 10, output depends on timing (a shard's statistics and cuts, a time limit)
  local want=${1%\~} timed=${1//[0-9]/}
  shift
  "$TSAN_ISMV" "$@" >"$out" 2>"$err"
  local rc=$?
  if grep -q "WARNING: ThreadSanitizer" "$err"; then
    echo "tsan.sh: ismv $*: ThreadSanitizer reports:" >&2
    grep -A 30 "WARNING: ThreadSanitizer" "$err" | head -60 >&2
    status=1
  elif [ "$rc" != "$want" ]; then
    echo "tsan.sh: ismv $*: exit $rc, expected $want" >&2
    tail -5 "$err" >&2
    status=1
  elif [ -n "${ISMV:-}" ] && [ -z "$timed" ]; then
    if ! "$ISMV" "$@" 2>/dev/null | cmp -s - "$out"; then
      echo "tsan.sh: ismv $*: output differs from $ISMV's" >&2
      status=1
    fi
  fi
}

explorer=examples/robotcar/explorer.yaml
for app in "$explorer" examples/thermostat/thermostat.yaml examples/cruise/cruise.yaml; do
  run 10 verify "$app" --bound "$bound" --jobs 2 --format json
done
run 10 verify "$explorer" --bound "$bound" --jobs 2 --search full --format json
run 10 verify "$explorer" --bound "$bound" --jobs 3 --split-depth 2 --format json
run 10 verify "$explorer" --bound "$bound" --jobs 2 --all --format json
run '0~' verify "$explorer" --bound "$bound" --jobs 2 --split-depth 2 --shard 1/2 --format json
run 10 verify "$explorer" --bound "$bound" --jobs 2 --top 3 --min-prob 0.2
# unranked reports of a subset: the split search hands each counterexample to verify_keep
run 10 verify "$explorer" --bound "$bound" --jobs 2 --split-depth 2 --probability none
run 10 verify "$explorer" --bound "$bound" --jobs 2 --probability none --format sarif
# exit 10: the time limit runs out after counterexamples were found (docs/verify.md)
# (the runs at a small bound end before the threads overlap much: a race left in by removing a
# lock in verify_topk.c's take() was reported only by these)
run '10~' verify "$explorer" --bound 12 --jobs 2 --timeout 2
run '10~' verify "$explorer" --bound 12 --jobs 2 --all --format json --timeout 2
[ "$status" = 0 ] && echo "tsan.sh: 12 threaded runs, no report"
exit $status
