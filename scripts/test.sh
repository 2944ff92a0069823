#!/usr/bin/env bash
# Builds kprof and runs every test (the README's second Quick start command; .ci/run calls it).
# GPU tests skip with a message when no GPU is present. The Python package is tested installed in a fresh venv
# (scripts/test-python.sh).
#
# Then, unless KPROF_TEST_QUICK=1: the whole suite again under ASan/UBSan (CMake preset `fuzz`: clang,
# -fsanitize=address,undefined, any report fails the test) and every libFuzzer target for FUZZ_SECONDS (default 20)
# from its seeds (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release
cmake --build --preset release
ctest --preset release
scripts/test-python.sh

if [ "${KPROF_TEST_QUICK:-0}" = 1 ]; then exit 0; fi
echo "== test suite under ASan/UBSan (preset fuzz)"
cmake --preset fuzz
cmake --build build/fuzz
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --preset fuzz -j2
echo "== fuzz targets, ${FUZZ_SECONDS:-20} s each"
FUZZ_NICE=0 scripts/fuzz.sh "${FUZZ_SECONDS:-20}"
