#!/usr/bin/env bash
# Quick start, command 1: install what the build needs, build kprof, run the main job.
#   On a machine with an NVIDIA GPU: profile the bundled example program (annotation mode; its default counters
#   come from CUPTI inside the program, so Nsight Compute is not needed).
#   Without a GPU: analyse the bundled real H200 profile (Nsight Compute CSV exports in tests/fixtures/).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
KPROF=build/release/kprof
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && [ -x build/release/probe_kernels ]; then
  echo "== GPU found: profiling the bundled example program (annotation mode)"
  exec "$KPROF" run --prof-type=annotation --kernel probe -- build/release/probe_kernels 1
fi
echo "== No GPU here: analysing the bundled real H200 profile (ncu --set full exports)"
exec "$KPROF" analyze tests/fixtures/h200-probe/full_raw.csv tests/fixtures/h200-probe/full_details.csv \
  --kernel probe --version v1
