#!/usr/bin/env bash
# One device call: tracer overhead on 20k tiny kernels (streams_nvtx_graph, time measured inside the program) with
# CONCURRENT_KERNEL records, KERNEL records (serialising) and the hardware-trace request, 9 interleaved rounds;
# whether CUPTI accepted the hardware trace is read back from the trace header. Expects build/dist (pack.sh).
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=$OUT/tracer-kinds.txt; : > $R
K="KPROF_TRACE_API=0 KPROF_TRACE_COPIES=0 KPROF_TRACE_SYNC=0 KPROF_TRACE_NVTX=0"  # kernel records only
for i in 1 2 3 4 5 6 7 8 9; do
  $D/streams_nvtx_graph | grep launch_bound_ms | sed "s/^/plain /" >> $R
  traced $K | sed "s/^/concurrent_kernel /" >> $R
  traced $K KPROF_TRACE_SERIAL_KERNELS=1 | sed "s/^/kernel_serial /" >> $R
  traced $K KPROF_TRACE_HWTRACE=1 | sed "s/^/hwtrace_request /" >> $R
done
sort $R | awk '{split($2,a,"="); v[$1]=v[$1]" "a[2]} END{for(k in v) print k, v[k]}' | sort > $OUT/tracer-kinds-summary.txt
env CUDA_INJECTION64_PATH=$D/libkprof_inject.so KPROF_TRACE_FILE=/tmp/hw.kptrace KPROF_TRACE_HWTRACE=1 $D/probe_kernels 1 >/dev/null
python3 - <<'PY' >> $OUT/tracer-kinds-summary.txt
import subprocess
out = subprocess.run(["strings", "/tmp/hw.kptrace"], capture_output=True, text=True).stdout
print("hwtrace header:", [l for l in out.splitlines() if "HWTrace" in l][:2] or "no error recorded")
PY
cat $OUT/tracer-kinds-summary.txt
