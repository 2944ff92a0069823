#!/usr/bin/env bash
# Builds kprof and runs every test (the README's second Quick start command; .ci/run calls it).
# GPU tests skip with a message when no GPU is present. The Python package is tested installed in a fresh venv
# (scripts/test-python.sh).
#
# Then, unless KPROF_TEST_QUICK=1: the tests of tests/sanitized-tests.txt again under ASan/UBSan (CMake preset
# `fuzz`: clang, -fsanitize=address,undefined, any report fails the test) and every libFuzzer target from its seeds
# for FUZZ_RUNS inputs (default 20000), at most FUZZ_SECONDS (default 12) each (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's wall time, printed as a table at the end (and when a phase fails), so that CI's 45-minute budget
# can be read per phase.
phases=()
phase() {
  local name=$1; shift
  echo "== $name"
  local t0=$SECONDS rc=0
  "$@" || rc=$?
  phases+=("$(printf '| %-34s | %6d s | %s |' "$name" $((SECONDS - t0)) "$([ $rc = 0 ] && echo ok || echo "FAILED ($rc)")")")
  if [ $rc != 0 ]; then print_phases; exit $rc; fi
}
print_phases() {
  echo "| phase | wall | result |"
  echo "| --- | ---: | --- |"
  printf '%s\n' "${phases[@]}"
  echo "| total | $SECONDS s | |"
}
phase "setup (Debian packages)" scripts/setup.sh
phase "configure (release)" cmake --preset release
phase "build (release)" cmake --build --preset release
phase "ctest (release)" ctest --preset release -j2
phase "python package" scripts/test-python.sh

if [ "${KPROF_TEST_QUICK:-0}" = 1 ]; then print_phases; exit 0; fi
phase "configure (ASan/UBSan, preset fuzz)" cmake --preset fuzz
# The sanitizer pass builds the tests of tests/sanitized-tests.txt (the preset sets KPROF_TESTS=sanitized) and the
# fuzz targets, not the benchmarks and examples.
phase "build (ASan/UBSan)" cmake --build build/fuzz --target kprof_tests fuzz_all
phase "ctest (ASan/UBSan)" env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --preset fuzz -j2
# Each fuzz target for FUZZ_RUNS inputs after its seeds, FUZZ_SECONDS at most.
phase "fuzz targets, ${FUZZ_RUNS:-20000} runs / ${FUZZ_SECONDS:-12} s each" \
  env FUZZ_NICE=0 FUZZ_NO_BUILD=1 FUZZ_RUNS="${FUZZ_RUNS:-20000}" scripts/fuzz.sh "${FUZZ_SECONDS:-12}"
print_phases
