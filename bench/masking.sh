#!/usr/bin/env bash
# Benchmark (not a test): runs every examples/masking/*.yaml and prints our
# wall time and peak memory beside MaskD's wall time measured on a machine
# like ours (../shared/anchors/maskd/maskd_runs_measured_here.tsv, the
# 2022 version: r22_ rows, else v22_). NA: MaskD gave no answer in its limit.
#   ISMV=build/release/ismv bash bench/masking.sh [NAME...]
set -u
cd "$(dirname "$0")/.."
ISMV=${ISMV:-build/release/ismv}
TSV=${MASKD_TSV:-../shared/anchors/maskd/maskd_runs_measured_here.tsv}
[ -x "$ISMV" ] || { echo "build $ISMV first (make)" >&2; exit 1; }

maskd_label() { # example name -> MaskD row suffix
  local n=$1
  case $n in
    memory-refresh3) echo memRefresh3 ;;
    memory*) echo "mem${n#memory}" ;;
    byzantine*) echo "byz${n#byzantine}" ;;
    brp-n*) local r=${n#brp-n}; echo "brpN${r%%-m*}M${r#*-m}" ;;
    *) echo "$n" ;;
  esac
}

maskd_field() { # label column(3=dist, 4=wall)
  local row
  row=$(awk -F'\t' -v a="r22_$1" -v b="v22_$1" '$1==a{print; f=1; exit} $1==b && !g{g=$0} END{if(!f && g) print g}' "$TSV")
  [ -n "$row" ] && printf '%s' "$row" | cut -f"$2" || printf 'NA'
}

printf '%-18s %10s %9s %10s | %10s %10s\n' case distance ours_s peak_MB maskd_dist maskd_wall
names=("$@")
[ ${#names[@]} -eq 0 ] && for f in examples/masking/*.yaml; do names+=("$(basename "$f" .yaml)"); done
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for name in "${names[@]}"; do
  cfg=examples/masking/$name.yaml
  /usr/bin/time -f '%e %M' -o "$tmp" "$ISMV" masking "$cfg" --format json >"$tmp.out" 2>/dev/null
  read -r secs kb < <(tail -n 1 "$tmp")
  dist=$(grep -o '"distance": *[0-9.e-]*' "$tmp.out" | head -1 | sed 's/.*: *//')
  [ -n "$dist" ] && dist=$(printf '%.3f' "$dist") || dist=ERR
  label=$(maskd_label "$name")
  printf '%-18s %10s %9s %10s | %10s %10s\n' "$name" "$dist" "$secs" "$((kb / 1024))" \
    "$(maskd_field "$label" 3)" "$(maskd_field "$label" 4)"
  rm -f "$tmp.out"
done
