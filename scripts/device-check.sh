#!/usr/bin/env bash
# One device call: runs every kprof mode on the bundled CUDA C++ programs and a Triton/PyTorch script, measures
# tracer overhead and annotation cost against `ncu --set full`, measures peaks, shows the clock protocol's
# status and dry run. Never changes clocks (ncu gets --clock-control none; clock scripts run without --yes).
# Expects build/dist from scripts/device/pack.sh (carried). Results: $OUT/results.tgz + $OUT/summary.txt.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd); cd "$ROOT"
D=$ROOT/build/dist; OUT=${OUT:-/tmp/kprof-out}; R=/tmp/kprof-results; rm -rf $R; mkdir -p $R $OUT
export KPROF_DATA_DIR=$ROOT/data PATH=$D:$PATH PYTHONUNBUFFERED=1
S=$R/summary.txt; : > $S
log() { echo "$*" | tee -a $S; }
now() { echo $EPOCHREALTIME; }
dt() { awk -v a=$1 -v b=$2 'BEGIN{printf "%.2f", b-a}'; }
step() {  # step NAME cmd...: runs, records wall time and exit code
  local name=$1; shift; local t0=$(now)
  "$@" > $R/$name.out 2> $R/$name.err; local rc=$?
  log "$(printf '%-28s rc=%-3s %8s s' $name $rc $(dt $t0 $(now)))"
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a $S
kprof --version | tee -a $S
O=$R/profiles
# 1. tracer overhead on 20k tiny kernels (time measured inside the program)
for i in 1 2 3; do ./build/dist/streams_nvtx_graph | grep launch_bound_ms | sed "s/^/plain $i /" >> $R/overhead.txt; done
for i in 1 2 3; do CUDA_INJECTION64_PATH=$D/libkprof_inject.so NVTX_INJECTION64_PATH=/usr/local/cuda/lib64/libcupti.so \
  KPROF_TRACE_FILE=/tmp/ovh.kptrace $D/streams_nvtx_graph | grep launch_bound_ms | sed "s/^/traced $i /" >> $R/overhead.txt; done
cat $R/overhead.txt | tee -a $S
# 2. every mode on the CUDA C++ programs
step event_probe     kprof run --prof_type=event --kernel probe --out $O/event_probe -- $D/probe_kernels 3
step nsys_streams    kprof run --prof_type=nsys --kernel streams --out $O/nsys_streams -- $D/streams_nvtx_graph
step event_streams   kprof run --prof_type=event --kernel streams --out $O/event_streams -- $D/streams_nvtx_graph
step annot_probe     kprof run --prof_type=annotation --kernel probe --out $O/annotation_probe -- $D/probe_kernels 1
step annot_probe_ncu kprof run --prof_type=annotation --timing ncu --kernel probe --out $O/annotation_probe_ncutiming -- $D/probe_kernels 1
step ncu_full_plain  ncu --clock-control none --set full -f -o /tmp/full $D/probe_kernels 1
step ncu_probe       kprof run --prof_type=ncu --kernel probe --out $O/ncu_probe -- $D/probe_kernels 1
step annot_streams   kprof run --prof_type=annotation --kernel streams --out $O/annotation_streams -- $D/streams_nvtx_graph
# 3. Triton / PyTorch
step event_triton    kprof run --prof_type=event --out $O/event_triton -- python3 examples/programs/triton_softmax.py
step nsys_triton     kprof run --prof_type=nsys --out $O/nsys_triton -- python3 examples/programs/triton_softmax.py
step annot_triton    kprof run --prof_type=annotation --out $O/annotation_triton -- python3 examples/programs/triton_softmax.py
# 4. errors: a failing program, a missing program, the GPU lock held
step fail_program    kprof run --prof_type=event --out $O/fail -- /bin/false
( flock -x 9; sleep 8 ) 9>/tmp/kprof-gpu0.lock & sleep 1
step lock_busy       kprof run --prof_type=event --no-wait --out $O/busy -- $D/probe_kernels 1
wait
# 5. clocks: status and dry runs only
step clock_status    kprof clock status
step clock_lock_dry  scripts/lock-gpu-clock.sh
step clock_reset_dry scripts/reset-gpu-clock.sh
# 6. peaks
step peaks           $D/kprof-peaks --out $R/peaks.json
ls -la /tmp/full.ncu-rep $O/ncu_probe/ncu/ 2>&1 | tee -a $S
rm -f $O/ncu_probe/ncu/profile.ncu-rep.big
find $O -name '*.ncu-rep' -size +12M -exec sh -c 'echo "dropped large $1"; rm "$1"' _ {} \; | tee -a $S
tar czf $OUT/results.tgz -C $R . && cp $S $OUT/summary.txt
ls -la $OUT; cat $S
