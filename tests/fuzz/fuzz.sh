#!/usr/bin/env bash
# Runs libFuzzer harnesses (built by `make fuzz`) for SECONDS each, from the
# seed corpus of each harness (bundled examples and the anchors), keeping
# what they learn in build/fuzz/corpus/NAME and any crashing input as
# build/fuzz/crashes/NAME-*. Exits 1 when a harness fails.
#   bash tests/fuzz/fuzz.sh SECONDS NAME...
# FUZZ_SEED (default 1) fixes libFuzzer's random seed, so a gate run on a
# clean clone tries the same inputs in the same order every time (a slower
# machine tries a prefix of them); FUZZ_SEED=0 lets libFuzzer pick one, for
# campaigns that should explore something new.
set -u
cd "$(dirname "$0")/../.."
seconds=$1
shift
anchors=../shared/anchors
seeds() {
  case $1 in
  fuzz_ism) ls examples/robotcar/*.yaml tests/models/verify/*.yaml tests/cases/reliability/*.yaml ;;
  fuzz_eventb) ls examples/eventb/*.yaml tests/cases/eventb/*.yaml ;;
  fuzz_expr) grep -rhoE '"[^"]*"' examples/robotcar tests/models/verify | tr -d '"' | sort -u | head -400 |
    split -l 1 - "$2/line-" ;;
  fuzz_fsp) { ls examples/*/*/*.lts; find $anchors/lts -name '*.lts' | sort | head -300; } 2>/dev/null ;;
  fuzz_maskd) { find examples/masking/faulty -name "*.test"; find $anchors/maskd -name "*.test"; } 2>/dev/null | sort ;;
  fuzz_masking) ls examples/masking/*.yaml examples/masking/yaml/*.yaml ;;
  fuzz_config) ls examples/robustness/*/*.yaml examples/envelope/*/*.yaml tests/data/robustify_voting2/*.json tests/fuzz/seeds/config-*.yaml ;;
  fuzz_json) ls tests/cases/*/*json*.out ;;
  fuzz_eofm) find examples tests/cases/eofm -name '*.xml' | sort ;;
  fuzz_aut) ls examples/*/*/*.aut tests/cases/fsp/*.aut examples/*/*/*/*.fsm tests/cases/fsp/fsm/*.fsm ;;
  esac
}
fail=0
for name in "$@"; do
  bin=build/fuzz/tests/$name
  corpus=build/fuzz/corpus/$name
  mkdir -p "$corpus" build/fuzz/crashes
  seeds "$name" "$corpus" | while read -r f; do [ -f "$f" ] && cp "$f" "$corpus/seed-$(echo "$f" | tr / _)"; done
  echo "fuzz: $name for $seconds s ($(ls "$corpus" | wc -l) inputs in the corpus)"
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    "$bin" -seed="${FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="build/fuzz/crashes/$name-" "$corpus" >"build/fuzz/$name.log" 2>&1
  rc=$?
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|cov: ' "build/fuzz/$name.log" | tail -3
  if [ $rc != 0 ]; then
    echo "fuzz: $name FAILED (exit $rc); see build/fuzz/$name.log"
    grep -E 'ERROR|SUMMARY|Test unit written' "build/fuzz/$name.log" | head -5
    fail=1
  fi
done
exit $fail
