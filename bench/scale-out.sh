#!/usr/bin/env bash
# Benchmark of `verify` past one process (not a test; docs/scale-out.md).
# Prints three tables for MODEL (default the robot-car explorer) at BOUND
# (default 6), split at depth SPLIT (default 2), one thread per rank; tables
# 1 and 2 once per search in SEARCH (default "full top-k": every
# counterexample sent and ranked, or only what each subtree's top-K part
# kept):
#  1. mpirun -np 1, 2, 4 (RANKS; --oversubscribe): wall and CPU seconds of
#     the whole run (-np 1: /usr/bin/time; more ranks: the sum of the ranks'
#     own, from --stats, as mpirun's rusage may miss them), speed-up in
#     wall time over -np 1, and per rank its subtrees, paths and CPU seconds
#     (--stats); "balance" is the busiest worker's CPU over the workers'
#     mean, "work speed-up" the workers' total CPU over the busiest one's:
#     the speed-up the distribution allows on as many idle cores as ranks;
#     "sent" the counterexamples the workers sent, "rank0_MB" rank 0's peak
#     memory (both from --stats); every report is checked byte-identical to
#     -np 1's;
#  2. --shard I/N for N = 2 and 4 (SHARDS), shard after shard: subtrees,
#     paths and CPU seconds per shard, the same balance figures, and the
#     counterexamples in the shard reports and their size in KB (what
#     crosses the network); the merged report is checked byte-identical to
#     the default single run's (no --split-depth);
#  3. growth per bound (GROWTH, default 3 4 5 6): single process, paths,
#     CPU seconds (the ranked report, the search alone, and the top-K search
#     of the default report, --search top-k) and peak memory, each with its
#     ratio to the bound below: the figures docs/scale-out.md extrapolates
#     to bound 16.
# Wall time on a shared machine is noisy; CPU seconds are the figures to compare.
#   ISMV=build/release/ismv bash bench/scale-out.sh
set -u
cd "$(dirname "$0")/.."
ISMV=${ISMV:-build/release/ismv}
ISMV_MPI=${ISMV_MPI:-$(dirname "$ISMV")/ismv-mpi}
MODEL=${MODEL:-examples/robotcar/explorer.yaml}
BOUND=${BOUND:-6}
SPLIT=${SPLIT:-2}
RANKS=${RANKS:-1 2 4}
SHARDS=${SHARDS:-2 4}
SEARCH=${SEARCH:-full top-k}
GROWTH=${GROWTH:-3 4 5 6}
TABLES=${TABLES:-1 2 3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "model $MODEL, bound $BOUND, split depth $SPLIT, --jobs 1; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"

calc() { awk "BEGIN {print $*}"; }
# "max/mean total/max" of the numbers on stdin
balance() { awk '{s += $1; if ($1 > m) m = $1; n++} END {if (n && m > 0) printf "%.2f %.2f", m / (s / n), s / m; else printf "- -"}'; }

for search in $SEARCH; do
args=(verify "$MODEL" --bound "$BOUND" --split-depth "$SPLIT" --jobs 1 -q --search "$search")
if [[ " $TABLES " == *" 1 "* ]]; then
  if [ ! -x "$ISMV_MPI" ] || ! command -v mpirun >/dev/null; then
    echo "1. MPI: skipped (no $ISMV_MPI: make MPI=1 after ./setup.sh --mpi)"
  else
    echo
    echo "1. mpirun --oversubscribe -np N $ISMV_MPI ${args[*]}"
    printf '%-5s %9s %9s %9s %8s %10s %7s %9s  %s\n' ranks wall_s cpu_s speed-up balance work_x sent rank0_MB \
      "per rank: subtrees/paths/cpu_s"
    base=
    for np in $RANKS; do
      /usr/bin/time -f '%e %U %S' -o "$tmp/time" mpirun --oversubscribe -np "$np" "$ISMV_MPI" "${args[@]}" --stats \
        >"$tmp/out.$np" 2>"$tmp/err"
      read -r wall user sys < <(tail -1 "$tmp/time")
      # mpirun's rusage does not always include its ranks': add up theirs (--stats)
      ranks_cpu=$(sed -n 's/^ismv: rank [0-9]*: .* \([0-9.]*\) s CPU, .*/\1/p' "$tmp/err" | awk '{s += $1} END {print s + 0}')
      sent=$(sed -n 's/^ismv: rank [0-9]*: .* \([0-9]*\) counterexamples sent, .*/\1/p' "$tmp/err" | awk '{s += $1} END {print s + 0}')
      rank0=$(sed -n 's/^ismv: rank 0: .* \([0-9]*\) MB peak$/\1/p' "$tmp/err")
      [ -z "$base" ] && base=$wall
      per=$(sed -n 's/^ismv: rank \([0-9]*\): \([0-9]*\) subtrees, \([0-9]*\) paths, [0-9]* counterexamples sent, \([0-9.]*\) s CPU, .*/\1:\2\/\3\/\4/p' "$tmp/err" | sort -n | tr '\n' ' ')
      bal=$(sed -n 's/^ismv: rank [0-9]*: [0-9]* subtrees, .* \([0-9.]*\) s CPU, .*/\1/p' "$tmp/err" | balance)
      [ "$np" = 1 ] && per="(one process)" && bal="- -" && sent=- && rank0=-
      # --stats puts seconds into the report: compare without them
      sed -E 's/[0-9]+\.[0-9]{3} s//g' "$tmp/out.$np" >"$tmp/cmp.$np"
      same=$(cmp -s "$tmp/cmp.$np" "$tmp/cmp.$(echo $RANKS | cut -d' ' -f1)" && echo "" || echo " REPORT DIFFERS")
      cpu=$(calc "$user + $sys")
      [ "$np" != 1 ] && cpu=$ranks_cpu
      printf '%-5s %9s %9.2f %9.2f %8s %10s %7s %9s  %s%s\n' "$np" "$wall" "$cpu" \
        "$(calc "$base / $wall")" ${bal% *} ${bal#* } "$sent" "$rank0" "$per" "$same"
    done
  fi
fi

if [[ " $TABLES " == *" 2 "* ]]; then
  echo
  echo "2. $ISMV ${args[*]} --shard I/N, one shard after another"
  printf '%-7s %9s %8s %10s %6s %8s  %s\n' shards cpu_s balance work_x cexs size_KB "per shard: subtrees/paths/cpu_s"
  for n in $SHARDS; do
    per= total=0 cexs=0 bytes=0
    : >"$tmp/cpus"
    for i in $(seq 1 "$n"); do
      /usr/bin/time -f '%U %S' -o "$tmp/time" "$ISMV" "${args[@]}" --shard "$i/$n" -o "$tmp/shard.$i.json" 2>/dev/null
      read -r user sys < <(tail -1 "$tmp/time")
      cpu=$(calc "$user + $sys")
      echo "$cpu" >>"$tmp/cpus"
      total=$(calc "$total + $cpu")
      counts=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%d/%d" % (len(d["parts"]), sum(p["paths"] for p in d["parts"])))' "$tmp/shard.$i.json")
      cexs=$((cexs + $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(len(p["counterexamples"]) for p in d["parts"] + [d["top"] or {"counterexamples": []}]))' "$tmp/shard.$i.json")))
      bytes=$((bytes + $(wc -c <"$tmp/shard.$i.json")))
      per="$per$i:$counts/$cpu "
    done
    files=()
    for i in $(seq 1 "$n"); do files+=("$tmp/shard.$i.json"); done
    "$ISMV" merge "${files[@]}" >"$tmp/merged" 2>/dev/null
    # the oracle: the default single run, unsplit (the report does not depend on the split)
    "$ISMV" verify "$MODEL" --bound "$BOUND" --jobs 1 -q --search "$search" >"$tmp/single" 2>/dev/null
    same=$(cmp -s "$tmp/merged" "$tmp/single" && echo "" || echo " MERGED REPORT DIFFERS")
    bal=$(balance <"$tmp/cpus")
    printf '%-7s %9.2f %8s %10s %6s %8s  %s%s\n' "$n" "$total" ${bal% *} ${bal#* } "$cexs" "$((bytes / 1024))" "$per" \
      "$same"
  done
fi
done

if [[ " $TABLES " == *" 3 "* ]]; then
  echo
  echo "3. growth per bound: $ISMV verify $MODEL --bound K --jobs 1: the ranked report (--search full), the search alone (--probability none), the top-K search (--search top-k)"
  printf '%-6s %9s %6s %9s %6s %9s %6s %9s %6s %9s %6s\n' bound paths x cpu_s x search_s x topk_s x peak_MB x
  ratio() { [ -n "$2" ] && awk "BEGIN {printf \"%.2f\", $1 / $2}" || echo -; }
  prev_p= prev_c= prev_s= prev_t= prev_m=
  for k in $GROWTH; do
    /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$ISMV" verify "$MODEL" --bound "$k" --jobs 1 -q --stats \
      --search full >/dev/null 2>"$tmp/err"
    read -r user sys mem < <(tail -1 "$tmp/time")
    paths=$(sed -n 's/^ismv: \([0-9]*\) paths.*/\1/p' "$tmp/err")
    cpu=$(calc "$user + $sys")
    mb=$(awk "BEGIN {printf \"%.0f\", $mem / 1024}")
    /usr/bin/time -f '%U %S' -o "$tmp/time" "$ISMV" verify "$MODEL" --bound "$k" --jobs 1 -q --probability none \
      >/dev/null 2>&1
    read -r user sys < <(tail -1 "$tmp/time")
    search=$(calc "$user + $sys")
    /usr/bin/time -f '%U %S' -o "$tmp/time" "$ISMV" verify "$MODEL" --bound "$k" --jobs 1 -q --search top-k \
      >/dev/null 2>&1
    read -r user sys < <(tail -1 "$tmp/time")
    topk=$(calc "$user + $sys")
    printf '%-6s %9s %6s %9.2f %6s %9.2f %6s %9.2f %6s %9s %6s\n' "$k" "$paths" "$(ratio "$paths" "$prev_p")" "$cpu" \
      "$(ratio "$cpu" "$prev_c")" "$search" "$(ratio "$search" "$prev_s")" "$topk" "$(ratio "$topk" "$prev_t")" \
      "$mb" "$(ratio "$mb" "$prev_m")"
    prev_p=$paths prev_c=$cpu prev_s=$search prev_t=$topk prev_m=$mb
  done
fi
