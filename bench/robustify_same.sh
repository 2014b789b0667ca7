#!/usr/bin/env bash
# Check (not a test: the slow configs take a minute of CPU): `ismv robustify
# --format json` of every Fortis thesis config (examples/robustify/*/config-*.json
# and tests/data/robustify_voting2's, 41 in all) byte-identical between a
# reference binary (e.g. main's, built before a speed change) and this one.
# Usage: bench/robustify_same.sh REF_ISMV [ISMV]. The reference's outputs are
# kept in $SAME_CACHE (default /tmp/robustify_same.<checksum of REF_ISMV>) and
# reused while the binary is the same. Prints one line per config that
# differs (and its exit codes) and "N of 41 identical"; exit 1 when any
# differs. SAME_ONLY=TEXT runs only the configs whose path contains TEXT.
set -u
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 REF_ISMV [ISMV]" >&2; exit 2; }
REF=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ISMV=${2:-build/release/ismv}
ISMV=$(cd "$(dirname "$ISMV")" && pwd)/$(basename "$ISMV")
CACHE=${SAME_CACHE:-/tmp/robustify_same.$(cksum <"$REF" | cut -d' ' -f1)}
mkdir -p "$CACHE"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
n=0 same=0
for cfg in examples/robustify/*/config-*.json tests/data/robustify_voting2/config-*.json; do
  case "$cfg" in *"${SAME_ONLY:-}"*) ;; *) continue ;; esac
  key=$(echo "$cfg" | tr '/' '_')
  dir=$(dirname "$cfg") base=$(basename "$cfg")
  if [ ! -f "$CACHE/$key.rc" ]; then
    (cd "$dir" && "$REF" robustify "$base" --format json >"$CACHE/$key.json" 2>/dev/null)
    echo $? >"$CACHE/$key.rc"
  fi
  (cd "$dir" && "$ISMV" robustify "$base" --format json >"$OUT/$key.json" 2>/dev/null)
  rc=$?
  n=$((n + 1))
  if [ "$rc" = "$(cat "$CACHE/$key.rc")" ] && cmp -s "$OUT/$key.json" "$CACHE/$key.json"; then
    same=$((same + 1))
  else
    echo "differs: $cfg (exit $(cat "$CACHE/$key.rc") -> $rc)"
  fi
done
echo "$same of $n identical"
[ "$same" = "$n" ]
