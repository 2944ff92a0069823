#!/usr/bin/env bash
# Device call (issue 27): where a profiled launch's time goes in the CUPTI counter pass. The injected collector is
# run directly (no kprof session: every kernel's first launch profiled) under the shipped metric list with counter
# images of 512 (the default), 64 and 8 ranges (KPROF_COUNTERS_MAX); the counter file's per-kernel phases (the
# launch with its replays, stop, decode, evaluate, the file write) and setup steps are summed per run.
# Never changes clocks. Results: summary.txt and one archive.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=$OUT; S=$OUT/summary.txt; : > $S
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader)"
METRICS=$(grep -v '^#' data/ncu-annotation-metrics.txt | grep -v -E '^(launch__|smsp__sass_|sm__maximum)' | grep . | paste -sd,)
facts() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ks = d.get("kernels", [])
ph = {}
for k in ks:
    for p, v in k.get("phases_ms", {}).items(): ph[p] = ph.get(p, 0) + v
steps = " ".join("%s=%.0f" % (k, v) for k, v in d.get("setup_steps_ms", {}).items())
print("passes=%s kernels=%d replay_sum=%.0fms phases[%s] setup=%.0fms [%s]" % (d.get("passes"), len(ks),
      sum(k.get("replay_wall_ms", 0) for k in ks), " ".join("%s=%.0f" % kv for kv in ph.items()), d.get("setup_ms", 0), steps))
PY
}
run_direct() {  # name max cmd...
  local name=$1 max=$2; shift 2
  local f=$R/counters-$name-$max.json; rm -f $f
  local t0=$(now)
  timeout 240 env CUDA_INJECTION64_PATH=$D/libkprof_inject.so KPROF_COUNTERS_FILE=$f KPROF_COUNTERS_METRICS=$METRICS \
    KPROF_COUNTERS_MAX=$max "$@" > $R/$name-$max.out 2> $R/$name-$max.err
  local rc=$?
  log "$(printf '%-7s max=%-4s %6s s rc=%s' $name $max $(dt $t0 $(now)) $rc)"
  [ -f $f ] && log "        $(facts $f)"
}
t0=$(now); $D/probe_kernels 1 > /dev/null 2>&1; log "probe   plain    $(dt $t0 $(now)) s"
for max in 512 64 8 512; do run_direct probe $max $D/probe_kernels 1; done
t0=$(now); python3 examples/programs/diag_torch.py > /dev/null 2>&1; log "torch   plain    $(dt $t0 $(now)) s"
for max in 512 128; do run_direct torch $max python3 examples/programs/diag_torch.py; done
log "done"
cp $S /tmp/summary.txt
(cd $OUT && tar czf /tmp/results.tgz .) && find $OUT -mindepth 1 -delete && mv /tmp/results.tgz /tmp/summary.txt $OUT/
