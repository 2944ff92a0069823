#!/usr/bin/env bash
# Builds kprof with CUDA here and copies what the GPU machine needs into build/dist (carried by the device tool).
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset release >/dev/null
cmake --build --preset release
rm -rf build/dist && mkdir -p build/dist
cp build/release/kprof build/release/src/collect/cupti/libkprof_inject.so build/release/libkprof_c.so build/dist/
for f in build/release/kprof-peaks build/release/src/collect/peaks/kprof-peaks build/release/probe_kernels build/release/misbehave \
         build/release/examples/programs/streams_nvtx_graph build/release/diag_corpus build/release/kprof-kernels \
         build/release/kernels/mla/mla_check build/release/profile_plan_example; do
  [ -f "$f" ] && cp "$f" build/dist/
done
# Symbols are not needed there; stripping keeps the carried folder well under the device tool's 64 MiB.
strip --strip-unneeded build/dist/* 2>/dev/null || true
ls -la build/dist
