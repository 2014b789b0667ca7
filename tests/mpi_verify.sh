#!/usr/bin/env bash
# `mpirun -np N ismv-mpi verify` (make MPI=1; docs/scale-out.md): rank 0
# hands the subtrees out, the other ranks search and rank them, and rank 0's
# report is the default single process's (no --split-depth: the report does
# not depend on the split), byte for byte, with its exit code: text and
# JSON, `mpirun --oversubscribe -np 3` at bound 7 on the wall-follower
# (violated) and the drone (verified), the default report, the top-K search
# (the ranks split at depth 2 by themselves); at bound 4 on two bundled apps
# split at depth 2, with the full and the top-K search (--search full,
# --search top-k), and -np 2 with --jobs 2 (a worker's threads ask for
# subtrees too). A rank whose search differs (here: another --split-depth,
# run MPMD) is exit 6 with the rank named and no report. A worker a
# --timeout stops above the split takes no subtree: with another worker the
# report is still the single run's; alone, the report is inconclusive
# (exit 5) and names it. Skipped (passing, with a note) when ismv-mpi was
# not built: Open MPI is not installed.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:?set ISMV to the ismv binary}"
if [ -z "${ISMV_MPI:-}" ] || ! command -v mpirun >/dev/null; then
  echo "skipped: no ismv-mpi (install Open MPI: ./setup.sh --mpi)"
  exit 0
fi
ISMV_MPI=$(cd "$(dirname "$ISMV_MPI")" && pwd)/$(basename "$ISMV_MPI")
# mpirun refuses root unless told (CI containers run as root); Open MPI's own
# leaks are not ours (ASan builds)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
# no network needed: shared memory and loopback only
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*" >&2; status=1; }
bound=4
[ "${MODE:-}" = asan ] && bound=3

check_app() { # NP, MODEL, the ranks' extra options (one word or ""), options...
  local np=$1 model=$2 mpi_extra=$3
  shift 3
  local args=(-q "$@")
  for format in text json; do
    "$ISMV" verify "$model" "${args[@]}" --format "$format" >"$tmp/single" 2>/dev/null
    local want=$?
    mpirun --oversubscribe -np "$np" "$ISMV_MPI" verify "$model" "${args[@]}" $mpi_extra --format "$format" \
      >"$tmp/mpi" 2>"$tmp/err"
    local rc=$?
    [ $rc = $want ] || fail "$model -np $np $format: exit $rc, single process $want: $(grep ismv "$tmp/err")"
    cmp -s "$tmp/single" "$tmp/mpi" || { fail "$model -np $np $* $format: the report differs"; diff "$tmp/single" "$tmp/mpi" | head -5; }
  done
}

check_app 3 examples/robotcar/wall-follower.yaml "" --bound 7
grep -q '"search": "top-k"' "$tmp/mpi" || fail "wall-follower at bound 7: not the top-K search by default"
grep -q '"verdict": "violated"' "$tmp/mpi" || fail "wall-follower at bound 7: not violated"
check_app 3 examples/drone/drone.yaml "" --bound 7
grep -q '"verdict": "verified"' "$tmp/mpi" || fail "drone at bound 7: not verified"
split=(--bound "$bound" --split-depth 2)
check_app 3 examples/thermostat/thermostat.yaml --split-depth=2 --bound "$bound" --search full
check_app 3 examples/robotcar/explorer.yaml --split-depth=2 --bound "$bound" --search full --top 3
check_app 2 examples/thermostat/thermostat.yaml --split-depth=2 --bound "$bound" --search full --jobs 2
check_app 3 examples/thermostat/thermostat.yaml --split-depth=2 --bound "$bound" --search top-k
check_app 3 examples/robotcar/explorer.yaml --split-depth=2 --bound "$bound" --search top-k --top 3

# a worker stopped by --timeout above the split (1 ms: before its search
# ends) asks for no subtree
w=examples/robotcar/wall-follower.yaml
"$ISMV" verify "$w" --bound "$bound" --search top-k -q >"$tmp/single" 2>/dev/null
mpirun --oversubscribe -np 2 "$ISMV_MPI" verify "$w" "${split[@]}" --search top-k -q : \
  -np 1 "$ISMV_MPI" verify "$w" "${split[@]}" --search top-k -q --timeout 0.001 >"$tmp/mpi" 2>"$tmp/err"
rc=$?
[ $rc = 10 ] || fail "a worker stopped above the split, another one: exit $rc, expected 10: $(grep ismv "$tmp/err")"
cmp -s "$tmp/single" "$tmp/mpi" || fail "a worker stopped above the split, another one: the report differs"
d=examples/drone/drone.yaml # --search full: the top-K search proves every class of the drone empty, no subtree
mpirun --oversubscribe -np 1 "$ISMV_MPI" verify "$d" --bound 7 -q --search full : \
  -np 1 "$ISMV_MPI" verify "$d" --bound 7 -q --search full --timeout 0.001 >"$tmp/mpi" 2>"$tmp/err"
rc=$?
[ $rc = 5 ] || fail "the only worker stopped above the split: exit $rc, expected 5: $(grep ismv "$tmp/err")"
grep -q "^inconclusive: rank 1 cut short (the time limit (--timeout) ran out); 2 of 2 subtrees not searched" "$tmp/mpi" ||
  fail "the only worker stopped above the split: the report does not name it: $(cat "$tmp/mpi")"

m=examples/thermostat/thermostat.yaml
mpirun --oversubscribe -np 1 "$ISMV_MPI" verify "$m" --bound "$bound" --split-depth 2 -q : \
  -np 1 "$ISMV_MPI" verify "$m" --bound "$bound" --split-depth 3 -q >"$tmp/mpi" 2>"$tmp/err"
rc=$?
[ $rc = 6 ] || fail "a rank with another split: exit $rc, expected 6"
grep -q "ismv: error: rank 1 split the search into other subtrees" "$tmp/err" || fail "no message naming rank 1: $(cat "$tmp/err")"
[ -s "$tmp/mpi" ] && fail "a failed run wrote a report"
exit $status
