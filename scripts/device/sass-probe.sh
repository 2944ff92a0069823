#!/usr/bin/env bash
# Device check (no kprof binaries needed): can CUPTI's SASS Metrics API give the CUPTI counter pass the bytes used per
# fetched global sector, which only Nsight Compute's SASS patching gives it now? Builds
# scripts/device/sass_metrics_probe.cu there, lists the chip's SASS metrics, reads five load patterns of known bytes
# per sector through the API (with each kernel's time unpatched and patched) and through Nsight Compute
# (--clock-control none), and prints both last. Writes $OUT/sass-metrics-list.txt, sass-run*.txt, sass-ncu.csv.
set -uo pipefail
. "$(dirname "$0")/steps.sh"; cd "$ROOT" || exit 1
W=/tmp/kprof-sass; mkdir -p $W
CUDA=${CUDA_HOME:-/usr/local/cuda}
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version | tail -2 | head -1; ncu --version | tail -1
} 2>&1 | tee $OUT/sass-env.txt
nvcc -std=c++17 -O2 -arch=sm_90 -o $W/probe scripts/device/sass_metrics_probe.cu -I$CUDA/include \
  -L$CUDA/lib64 -L$CUDA/extras/CUPTI/lib64 -lcupti -lcuda 2>&1 | tail -5
export LD_LIBRARY_PATH=$CUDA/lib64:$CUDA/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
timeout 120 $W/probe list > $OUT/sass-metrics-list.txt 2>&1; echo "list rc=$?"
head -1 $OUT/sass-metrics-list.txt
grep -i "global\|sector\|bytes" $OUT/sass-metrics-list.txt | cut -c1-160 | head -40
timeout 180 $W/probe run mem_global_op_ld > $OUT/sass-run.txt 2>&1; echo "run rc=$?"
timeout 180 $W/probe run sectors data_bytes > $OUT/sass-run-bytes.txt 2>&1; echo "run bytes rc=$?"
timeout 180 ncu --clock-control none --csv --page raw --print-units base \
  --metrics smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,gpu__time_duration.sum \
  --log-file $OUT/sass-ncu.csv $W/probe plain > $W/ncu.out 2>&1; echo "ncu rc=$?"
echo "== CUPTI SASS Metrics API (sums over the kernel's patched instructions; expected bytes per sector) =="
cat $OUT/sass-run.txt $OUT/sass-run-bytes.txt
echo "== Nsight Compute on the same kernels =="
python3 - "$OUT/sass-ncu.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
start = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
hdr = rows[start]
for r in rows[start + 2:]:
    d = dict(zip(hdr, r))
    print(d["Kernel Name"][:12].ljust(12), " ".join(f"{k.split('__')[1][:48]}={d.get(k)}" for k in hdr if k.startswith(("smsp__sass", "l1tex", "gpu__time"))))
EOF
