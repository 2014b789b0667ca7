#!/usr/bin/env bash
# The GitHub Action's steps (action.yml), as a script a test can run locally:
#   .ci/action.sh build   install the build dependencies and build ismv
#   .ci/action.sh check   run `ismv check` on the files the globs in $INPUT_FILES name,
#                         write SARIF to $INPUT_SARIF (and JUnit to $INPUT_JUNIT if set),
#                         and record exit-code=N in $GITHUB_OUTPUT (never fails itself,
#                         so the SARIF is uploaded before the job fails) and
#                         sarif-complete=true|false: whether the SARIF's run was complete
#                         (executionSuccessful; false when a file was inconclusive or invalid)
# $ISMV names a prebuilt binary; otherwise the one built here is used.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
ismv=${ISMV:-$here/build/release/ismv}
case "${1:-}" in
build)
  if [ "$(id -u)" = 0 ]; then "$here/setup.sh" --build-deps; else sudo "$here/setup.sh" --build-deps; fi
  make -C "$here" -j"$(nproc)"
  ;;
check)
  : "${INPUT_FILES:?set INPUT_FILES to one or more globs of model files}"
  sarif=${INPUT_SARIF:-ismv.sarif}
  shopt -s globstar nullglob
  files=()
  # shellcheck disable=SC2086 # the globs are meant to expand
  for f in $INPUT_FILES; do files+=("$f"); done
  if [ ${#files[@]} = 0 ]; then
    echo "ismv action: no file matches '$INPUT_FILES'" >&2
    printf 'exit-code=1\nsarif-complete=false\n' >>"${GITHUB_OUTPUT:-/dev/null}"
    exit 0
  fi
  read -r -a extra <<<"${INPUT_ARGS:-}"
  rc=0
  "$ismv" check -j "${INPUT_JOBS:-$(nproc)}" "${extra[@]}" -f sarif -o "$sarif" "${files[@]}" || rc=$?
  if [ -n "${INPUT_JUNIT:-}" ]; then
    "$ismv" check -j "${INPUT_JOBS:-$(nproc)}" "${extra[@]}" -f junit -o "$INPUT_JUNIT" "${files[@]}" 2>/dev/null || true
  fi
  # the SARIF writer's own spelling (apps/sarif.c); a missing or partial log is not complete
  complete=false
  grep -q '"executionSuccessful": true' "$sarif" 2>/dev/null && complete=true
  echo "ismv action: checked ${#files[@]} file(s), exit code $rc; SARIF in $sarif (complete: $complete)"
  printf 'exit-code=%s\nsarif-complete=%s\n' "$rc" "$complete" >>"${GITHUB_OUTPUT:-/dev/null}"
  ;;
*)
  echo "usage: .ci/action.sh build|check" >&2
  exit 1
  ;;
esac
