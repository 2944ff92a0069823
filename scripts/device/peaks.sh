#!/usr/bin/env bash
# Device call: kprof peaks --measure on the GPU (never touches clocks). Results in $OUT.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd); cd "$ROOT"
export KPROF_DATA_DIR=$ROOT/data
cp data/devices.json $OUT/devices.json
t0=$EPOCHREALTIME
build/dist/kprof-peaks --out $OUT/peaks.json 2>&1 | tee $OUT/peaks.log
echo "kprof-peaks wall: $(awk -v a=$t0 -v b=$EPOCHREALTIME 'BEGIN{printf "%.2f s", b-a}')" | tee -a $OUT/peaks.log
build/dist/kprof peaks --import $OUT/peaks.json --write-devices $OUT/devices.json --docs $OUT
