#!/usr/bin/env bash
# Device call: kprof peaks --measure on the GPU (never touches clocks). Results in $OUT.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
cp data/devices.json $OUT/devices.json
t0=$EPOCHREALTIME
$D/kprof-peaks --out $OUT/peaks.json 2>&1 | tee $OUT/peaks.log
echo "kprof-peaks wall: $(awk -v a=$t0 -v b=$EPOCHREALTIME 'BEGIN{printf "%.2f s", b-a}')" | tee -a $OUT/peaks.log
$D/kprof peaks --import $OUT/peaks.json --write-devices $OUT/devices.json --docs $OUT
