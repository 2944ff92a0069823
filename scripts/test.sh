#!/usr/bin/env bash
# Builds kprof and runs every test (the README's second Quick start command; .ci/run calls it).
# GPU tests skip with a message when no GPU is present. The Python package is tested installed in a fresh venv
# (scripts/test-python.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release
cmake --build --preset release
ctest --preset release
scripts/test-python.sh
