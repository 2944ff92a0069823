#!/usr/bin/env bash
# One device call: in-process counters (CUPTI range profiler) against Nsight Compute on the same programs, the
# cost of annotation mode both ways against `ncu --set full`, where ncu's fixed cost goes, and the tracer's
# overhead under CUPTI's buffer settings. Never changes clocks (ncu gets --clock-control none).
# Expects build/dist from scripts/device/pack.sh (carried). Results: $OUT/counters.tgz + $OUT/counters-summary.txt.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-counters; rm -rf $R; mkdir -p $R
S=$R/summary.txt; : > $S
O=$R/profiles
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a $S
# 1. cost: plain program, ncu full, annotation with ncu and with CUPTI counters (interleaved, 3 rounds)
for i in 1 2 3; do
  step plain_$i            $D/probe_kernels 1
  step ncu_full_$i         ncu --clock-control none --set full -f -o /tmp/full $D/probe_kernels 1
  step annot_ncu_$i        kprof run --prof-type=annotation --timing counters --kernel probe --out $O/annot_ncu_$i -- $D/probe_kernels 1
  step annot_cupti_$i      kprof run --prof-type=annotation --counters cupti --timing counters --kernel probe --out $O/annot_cupti_$i -- $D/probe_kernels 1
  step annot_cupti_trace_$i kprof run --prof-type=annotation --counters cupti --kernel probe --out $O/annot_cupti_trace_$i -- $D/probe_kernels 1
done
cp $O/annot_cupti_1/counters.json $R/probe_counters.json 2>/dev/null
# 2. the other programs with CUPTI counters (NVTX stages, streams, graphs; Python/Triton through the driver API)
step cupti_streams  kprof run --prof-type=annotation --counters cupti --kernel streams --out $O/cupti_streams -- $D/streams_nvtx_graph 2000
step ncu_streams    kprof run --prof-type=annotation --kernel streams --out $O/ncu_streams -- $D/streams_nvtx_graph 2000
step cupti_triton   kprof run --prof-type=annotation --counters cupti --out $O/cupti_triton -- python3 examples/programs/triton_softmax.py
step ncu_triton     kprof run --prof-type=annotation --out $O/ncu_triton -- python3 examples/programs/triton_softmax.py
step cupti_all      kprof run --prof-type=annotation --counters cupti --all-launches --timing counters --kernel probe --out $O/cupti_all -- $D/probe_kernels 1
step cupti_mla      env KPROF_COUNTERS=cupti kprof mla v2 --prof-type=annotation --out $O/cupti_mla_v2
# 3. where ncu's fixed cost goes (first launch of each kernel, the annotation metric list)
M=$(grep -v '^#' data/ncu-annotation-metrics.txt | grep . | paste -sd, -)
step ncu_version     ncu --version
step ncu_nokernel    ncu --clock-control none --metrics gpu__time_duration.sum --kernel-id ::regex:^no_such_kernel$:1 $D/probe_kernels 1
step ncu_annot       ncu --clock-control none --nvtx --metrics $M --kernel-id ::regex:.*:1 --csv --page raw --print-units base --log-file /tmp/a.csv $D/probe_kernels 1
mkdir -p /tmp/empty-sections
step ncu_annot_nosec ncu --clock-control none --nvtx --section-folder /tmp/empty-sections --metrics $M --kernel-id ::regex:.*:1 --csv --page raw --print-units base --log-file /tmp/b.csv $D/probe_kernels 1
step ncu_annot_nonvtx ncu --clock-control none --metrics $M --kernel-id ::regex:.*:1 --csv --page raw --print-units base --log-file /tmp/c.csv $D/probe_kernels 1
step ncu_annot_nocache ncu --clock-control none --cache-control none --nvtx --metrics $M --kernel-id ::regex:.*:1 --csv --page raw --print-units base --log-file /tmp/d.csv $D/probe_kernels 1
# 4. tracer overhead on 20k tiny kernels under CUPTI's buffer settings (7 interleaved rounds)
K="KPROF_TRACE_API=0 KPROF_TRACE_COPIES=0 KPROF_TRACE_SYNC=0 KPROF_TRACE_NVTX=0"
for i in 1 2 3 4 5 6 7; do
  $D/streams_nvtx_graph | grep launch_bound_ms | sed "s/^/plain /" >> $R/overhead.txt
  traced $K | sed "s/^/kernels /" >> $R/overhead.txt
  traced $K KPROF_TRACE_ZEROED=1 | sed "s/^/kernels+zeroed /" >> $R/overhead.txt
  traced $K KPROF_TRACE_PINNED=1 | sed "s/^/kernels+pinned /" >> $R/overhead.txt
  traced $K KPROF_TRACE_DEVBUF_MB=64 KPROF_TRACE_PREALLOC=4 | sed "s/^/kernels+devbuf64 /" >> $R/overhead.txt
  traced $K KPROF_TRACE_BUFFER_MB=64 KPROF_TRACE_ZEROED=1 KPROF_TRACE_PINNED=1 KPROF_TRACE_DEVBUF_MB=64 | sed "s/^/kernels+all /" >> $R/overhead.txt
  traced | sed "s/^/default /" >> $R/overhead.txt
  traced KPROF_TRACE_ZEROED=1 KPROF_TRACE_PINNED=1 KPROF_TRACE_DEVBUF_MB=64 KPROF_TRACE_BUFFER_MB=64 | sed "s/^/default+all /" >> $R/overhead.txt
done
sort $R/overhead.txt | awk '{split($2,a,"="); v[$1]=v[$1]" "a[2]} END{for(k in v) print k, v[k]}' | sort | tee -a $S
# 5. compare the counters: CUPTI vs ncu, per kernel
python3 scripts/device/compare_counters.py $O/annot_cupti_1 $O/annot_ncu_1 2>&1 | tee -a $S
python3 scripts/device/compare_counters.py $O/cupti_streams $O/ncu_streams 2>&1 | tail -5 | tee -a $S
python3 scripts/device/compare_counters.py $O/cupti_triton $O/ncu_triton 2>&1 | tail -5 | tee -a $S
for f in $R/*.err; do [ -s $f ] && { echo "== $f"; tail -5 $f; }; done > $R/errors.txt
tar czf $OUT/counters.tgz -C $R . && cp $S $OUT/counters-summary.txt
cat $S
