#!/usr/bin/env bash
# Device call: the tracer with the driver's launch calls recorded by default (cuptiActivityEnableDriverApi for the
# cuLaunchKernel* callbacks), which places kernels that libraries launch through the driver API (cuBLASLt) in
# their NVTX range.
#   1. kprof mla v4 --prof-type=event at b=32 s=16 t=4096: every launch of every stage inside its stage
#   2. tracer overhead on 20k tiny launches, ROUNDS alternating rounds: untraced, kernels only, event set, nsys set
# Never changes clocks. Results: $OUT/launch-records.tgz, $OUT/launch-records-summary.txt.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-launch-records; rm -rf $R; mkdir -p $R
S=$R/summary.txt; : > $S
STEP_TIMEOUT=${STEP_TIMEOUT:-150}
ROUNDS=${ROUNDS:-5}
step mla_v4_event kprof mla v4 --b=32 --s=16 --t=4096 --prof-type=event --cache-dir $R/cache --out $R/mla_v4_event
python3 - $R/mla_v4_event/profile.json <<'PY' | tee -a $S
import json, sys
p = json.load(open(sys.argv[1]))
for s in p["stages"]:
    for g in s["kernels"]:
        print(f"{s['name']:50.50} {g['kernel'][:40]:40} launches={g['duration_ns']['count']} median_us={g['duration_ns']['median']/1e3:.1f}")
PY
T=$R/tracer.txt; : > $T
for i in $(seq $ROUNDS); do
  $D/streams_nvtx_graph | grep launch_bound_ms | sed "s/^/untraced /" >> $T
  traced KPROF_TRACE_API=0 KPROF_TRACE_COPIES=0 KPROF_TRACE_SYNC=0 KPROF_TRACE_NVTX=0 | sed "s/^/kprof_kernels_only /" >> $T
  traced KPROF_TRACE_COPIES=0 KPROF_TRACE_SYNC=0 | sed "s/^/kprof_event_set /" >> $T
  traced | sed "s/^/kprof_nsys_set /" >> $T
done
python3 - $T <<'PY' | tee -a $S
import collections, statistics as st, sys
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) >= 2 and "=" in parts[-1]: v[parts[0]].append(float(parts[-1].split("=")[1]))
base = st.median(v["untraced"])
for k, xs in v.items(): print(f"{k:20} median {st.median(xs):7.1f} ms  ratio {st.median(xs)/base:.3f}  runs {' '.join(f'{x:.1f}' for x in xs)}")
PY
tar czf $OUT/launch-records.tgz -C $R --exclude=cache . && cp $S $OUT/launch-records-summary.txt
