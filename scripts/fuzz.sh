#!/usr/bin/env bash
# Builds the libFuzzer targets (CMake preset `fuzz`: clang, -fsanitize=fuzzer,address,undefined) and runs each for
# N seconds, one after the other (one core), starting from its committed seeds in fuzz/corpus/<target>/.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     default: 60 s, every target in fuzz/CMakeLists.txt
#
# New inputs go to build/fuzz/corpus/<target>/ (not committed); a crash, leak, timeout or sanitizer report is saved
# as build/fuzz/findings/<target>/crash-* etc. and makes the script exit 1 after the remaining targets ran.
# Prints one summary row per target (target, executions, seconds, exec/s, result); also written to
# build/fuzz/summary.md (FUZZ_SUMMARY). FUZZ_NO_BUILD=1 runs the targets already built. FUZZ_RUNS=N stops a
# target after N executions (SECONDS stays the upper bound). FUZZ_LOG_DIR (default build/fuzz) holds the logs. FUZZ_NICE (default 19) sets the niceness; FUZZ_RSS_MB (default 2048) libFuzzer's RSS limit.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
[ -f /work/ccache.env ] && . /work/ccache.env
probe='extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }'
if ! echo "$probe" | clang++ -x c++ -fsanitize=fuzzer -o /dev/null - 2>/dev/null; then
  echo "fuzz: clang with libFuzzer is missing (Debian: clang libclang-rt-14-dev; scripts/setup.sh installs them)" >&2
  exit 2
fi
if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then  # FUZZ_NO_BUILD=1: run what build/fuzz holds
  cmake --preset fuzz >/dev/null
  if [ $# -gt 0 ]; then nice -n "${FUZZ_NICE:-19}" cmake --build build/fuzz --target "$@"
  else nice -n "${FUZZ_NICE:-19}" cmake --build --preset fuzz; fi
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in fuzz/fuzz_*.cpp; do targets+=("$(basename "$f" .cpp)"); done  # one target per source file
fi
summary=${FUZZ_SUMMARY:-build/fuzz/summary.md}
echo "| target | executions | seconds | exec/s | result |" >"$summary"
echo "|---|---:|---:|---:|---|" >>"$summary"
failed=0
for t in "${targets[@]}"; do
  work=build/fuzz/corpus/$t
  findings=build/fuzz/findings/$t
  mkdir -p "$work" "$findings"
  seeds=fuzz/corpus/$t
  log=${FUZZ_LOG_DIR:-build/fuzz}/$t.log
  start=$(date +%s.%N)
  set +e
  nice -n "${FUZZ_NICE:-19}" "build/fuzz/fuzz/$t" -max_total_time="$seconds" -print_final_stats=1 \
    -rss_limit_mb="${FUZZ_RSS_MB:-2048}" -timeout=10 ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} \
    -artifact_prefix="$findings/" "$work" "$seeds" >"$log" 2>&1
  rc=$?
  set -e
  end=$(date +%s.%N)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  execs=${execs:-0}
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')
  rate=$(awk -v e="$execs" -v s="$secs" 'BEGIN { printf "%.0f", (s > 0 ? e / s : 0) }')
  if [ $rc -eq 0 ]; then result="no findings"; else result="FINDING (rc $rc, see $log, $findings/)"; failed=1; fi
  row="| $t | $execs | $secs | $rate | $result |"
  echo "$row" | tee -a "$summary"
  [ $rc -ne 0 ] && grep -m5 -E "ERROR: |runtime error|SUMMARY|terminate called|what\(\)" "$log" >&2 || true
done
exit $failed
