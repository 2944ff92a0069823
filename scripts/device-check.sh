#!/usr/bin/env bash
# One device call: runs every kprof mode on the bundled CUDA C++ programs and a Triton/PyTorch script, measures
# tracer overhead and annotation cost against `ncu --set full`, measures peaks, shows the clock protocol's
# status and dry run. Never changes clocks (ncu gets --clock-control none; clock scripts run without --yes).
# Expects build/dist from scripts/device/pack.sh (carried). Results: $OUT/results.tgz + $OUT/summary.txt.
set -u
. "$(dirname "$0")/device/steps.sh"; cd "$ROOT"
R=/tmp/kprof-results; rm -rf $R; mkdir -p $R
S=$R/summary.txt; : > $S
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a $S
kprof --version | tee -a $S
O=$R/profiles
# 1. tracer overhead on 20k tiny kernels (time measured inside the program), variants interleaved, 5 rounds
for i in 1 2 3 4 5; do
  $D/streams_nvtx_graph | grep launch_bound_ms | sed "s/^/plain /" >> $R/overhead.txt
  traced KPROF_TRACE_API=0 KPROF_TRACE_COPIES=0 KPROF_TRACE_SYNC=0 KPROF_TRACE_NVTX=0 | sed "s/^/kernels-only /" >> $R/overhead.txt
  traced KPROF_TRACE_API=0 | sed "s/^/kernels+copies+sync+nvtx /" >> $R/overhead.txt
  traced | sed "s/^/+runtime-api(default) /" >> $R/overhead.txt
  traced KPROF_TRACE_DRIVER=1 | sed "s/^/+driver-api /" >> $R/overhead.txt
done
sort $R/overhead.txt | awk '{split($2,a,"="); v[$1]=v[$1]" "a[2]} END{for(k in v) print k, v[k]}' | tee -a $S
# 2. every mode on the CUDA C++ programs
step event_probe     kprof run --prof-type=event --kernel probe --out $O/event_probe -- $D/probe_kernels 3
step nsys_streams    kprof run --prof-type=nsys --kernel streams --out $O/nsys_streams -- $D/streams_nvtx_graph 2000
step event_streams   kprof run --prof-type=event --kernel streams --out $O/event_streams -- $D/streams_nvtx_graph 2000
step annot_probe     kprof run --prof-type=annotation --kernel probe --out $O/annotation_probe -- $D/probe_kernels 1
step annot_probe_all kprof run --prof-type=annotation --all-launches --kernel probe --out $O/annotation_probe_all_launches -- $D/probe_kernels 1
step annot_probe_ncu kprof run --prof-type=annotation --timing ncu --kernel probe --out $O/annotation_probe_ncutiming -- $D/probe_kernels 1
step annot_probe_cupti kprof run --prof-type=annotation --counters cupti --kernel probe --out $O/annotation_probe_cupti -- $D/probe_kernels 1
step annot_probe_cupti_ct kprof run --prof-type=annotation --counters cupti --timing counters --kernel probe --out $O/annotation_probe_cupti_counters -- $D/probe_kernels 1
step ncu_full_plain  ncu --clock-control none --set full -f -o /tmp/full $D/probe_kernels 1
step ncu_probe       kprof run --prof-type=ncu --kernel probe --out $O/ncu_probe -- $D/probe_kernels 1
step annot_streams   kprof run --prof-type=annotation --kernel streams --out $O/annotation_streams -- $D/streams_nvtx_graph 2000
step annot_streams_cupti kprof run --prof-type=annotation --counters cupti --kernel streams --out $O/annotation_streams_cupti -- $D/streams_nvtx_graph 2000
# 2b. a kernel package with in-process counters, and the C++ API (event mode, version override)
step pkg_mla_v3_cupti kprof mla v3 --prof-type=annotation --counters cupti --out $O/mla_v3_cupti
step api_example     $D/profile_plan_example $O/api
# 3. Triton / PyTorch
step event_triton    kprof run --prof-type=event --out $O/event_triton -- python3 examples/programs/triton_softmax.py
step nsys_triton     kprof run --prof-type=nsys --out $O/nsys_triton -- python3 examples/programs/triton_softmax.py
step annot_triton    kprof run --prof-type=annotation --out $O/annotation_triton -- python3 examples/programs/triton_softmax.py
step annot_triton_cupti kprof run --prof-type=annotation --counters cupti --out $O/annotation_triton_cupti -- python3 examples/programs/triton_softmax.py
# 3b. event-mode median vs do_bench on a 0.5 ms-class elementwise kernel, 5 invocations each
for i in 1 2 3 4 5; do
  kprof run --prof-type=event -q --kernel elementwise --out $O/event_elementwise_$i -- python3 bench/python/elementwise.py loop
  python3 bench/python/elementwise.py dobench >> $R/dobench.txt
done
# 3c. ncu replay passes per metric group (one kernel, first launch)
M=$(grep -v '^#' data/ncu-annotation-metrics.txt | grep . | paste -sd, -)
core=$(grep -v '^#' data/ncu-annotation-metrics.txt | grep . | grep -v 'sass_thread_inst\|ops_path' | paste -sd, -)
fp32=$core,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
tens=$core,$(grep -v '^#' data/ncu-annotation-metrics.txt | grep ops_path | paste -sd, -)
for v in core fp32 tens M; do
  t0=$(now); ncu --clock-control none --metrics ${!v} --kernel-id ::regex:wmma_gemm:1 --csv --page raw --print-units base \
    --log-file /tmp/passes_$v.csv $D/probe_kernels 1 > /dev/null 2>&1
  echo "$v passes=$(python3 -c "import csv,sys; r=[l for l in open('/tmp/passes_$v.csv') if l.startswith('\"')]; x=list(csv.reader(r)); i=x[0].index('profiler__replayer_passes'); print(x[2][i])") wall=$(dt $t0 $(now))" | tee -a $S
done
# 3d. counters from the CUPTI range profiler against Nsight Compute's, kernel by kernel
for p in "annotation_probe_cupti_counters annotation_probe_ncutiming" "annotation_streams_cupti annotation_streams" \
         "annotation_triton_cupti annotation_triton"; do
  set -- $p; python3 scripts/device/compare_counters.py $O/$1 $O/$2 > $R/compare_$1.txt 2>&1
  log "compare_$1 rc=$? $(tail -1 $R/compare_$1.txt)"
done
# 4. errors: a failing program, a missing program, the GPU lock held
step fail_program    kprof run --prof-type=event --out $O/fail -- /bin/false
( flock -x 9; sleep 8 ) 9>/tmp/kprof-gpu0.lock & sleep 1
step lock_busy       kprof run --prof-type=event --no-wait --out $O/busy -- $D/probe_kernels 1
wait
# 5. clocks: status and dry runs only
step clock_status    kprof clock status
step clock_lock_dry  scripts/lock-gpu-clock.sh
step clock_reset_dry scripts/reset-gpu-clock.sh
# 6. peaks
step peaks           $D/kprof-peaks --out $R/peaks.json
cp data/devices.json $R/devices.json
step peaks_measure   kprof peaks --measure --write-devices $R/devices.json --docs $R/docs-devices
ls -la /tmp/full.ncu-rep $O/ncu_probe/ncu/ 2>&1 | tee -a $S
find $O -name '*.ncu-rep' -size +12M -exec sh -c 'echo "dropped large $1"; rm "$1"' _ {} \; | tee -a $S
python3 scripts/device/validate.py $R 2>&1 | tee -a $S
tar czf $OUT/results.tgz -C $R . && cp $S $OUT/summary.txt
ls -la $OUT; cat $S
