#!/usr/bin/env bash
# Builds kprof with CUDA here and copies what the GPU machine needs into build/dist (carried by the device tool).
set -euo pipefail
cd "$(dirname "$0")/../.."
cmake --preset release >/dev/null
cmake --build --preset release
rm -rf build/dist && mkdir -p build/dist
cp build/release/kprof build/release/src/collect/cupti/libkprof_inject.so build/release/libkprof_c.so build/dist/
for f in build/release/kprof-peaks build/release/src/collect/peaks/kprof-peaks build/release/probe_kernels build/release/misbehave \
         build/release/examples/programs/streams_nvtx_graph build/release/diag_corpus build/release/diag_holdout7 \
         build/release/diag_holdout9 build/release/diag_holdout10 build/release/diag_holdout12 build/release/footprint \
         build/release/diag_holdout14 build/release/diag_holdout16 build/release/diag_holdout20 build/release/diag_holdout22 build/release/diag_holdout24 build/release/diag_holdout26 build/release/diag_holdout27 build/release/diag_holdout28 build/release/diag_holdout30 build/release/diag_holdout33 \
         build/release/kprof-kernels \
         build/release/kernels/mla/mla_check build/release/profile_plan_example; do
  [ -f "$f" ] && cp "$f" build/dist/
done
# Symbols are not needed there; stripping keeps the carried folder well under the device tool's 64 MiB.
strip --strip-unneeded build/dist/* 2>/dev/null || true
ls -la build/dist
# The repository's tracked files take most of the 64 MiB the device tool carries: when build/dist does not fit
# beside them, carry this archive of the three binaries most calls need and unpack it there first
# (`tar xzf build/dist-core.tgz -C build`).
tar czf build/dist-core.tgz -C build dist/kprof dist/libkprof_inject.so dist/libkprof_c.so
ls -la build/dist-core.tgz
