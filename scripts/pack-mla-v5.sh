#!/usr/bin/env bash
# Packs what scripts/device/mla_v5.sh needs on the GPU machine into one tarball (stripped binaries, the script and
# the steps.sh it sources):
#   scripts/pack-mla-v5.sh [TARBALL]     (default build/dist-mla.tgz)
# Builds only the targets it needs (kprof, kprof-kernels, mla_check, the tracer libraries).  On the machine:
#   tar xzf dist-mla.tgz -C build && STEPS="..." bash build/dist-mla/mla_v5.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/dist-mla.tgz}
cmake --preset release >/dev/null
cmake --build build/release --target mla_check kprof-kernels kprof kprof_inject kprof_c
d=$(mktemp -d); mkdir -p $d/dist-mla
cp build/release/kprof build/release/kprof-kernels build/release/kernels/mla/mla_check \
   build/release/src/collect/cupti/libkprof_inject.so build/release/libkprof_c.so scripts/device/mla_v5.sh \
   scripts/device/steps.sh $d/dist-mla/
strip --strip-unneeded $d/dist-mla/kprof $d/dist-mla/kprof-kernels $d/dist-mla/mla_check $d/dist-mla/*.so
tar czf "$out" -C $d dist-mla
rm -rf $d
ls -la "$out"
