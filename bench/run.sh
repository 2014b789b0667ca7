#!/usr/bin/env bash
# Runs every benchmark script in bench/ (not tests: they print figures and
# ratios for a person to read). `make bench` calls this with ISMV set.
set -u
cd "$(dirname "$0")/.."
: "${ISMV:=build/release/ismv}"
export ISMV
for b in bench/*.sh; do
  [ "$(basename "$b")" = run.sh ] && continue
  echo "== $b"
  bash "$b"
  echo
done
