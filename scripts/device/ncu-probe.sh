#!/usr/bin/env bash
# Device check: what ncu accepts on the H200 (metric list, one-launch-per-kernel filter, CSV to a log file),
# and what it costs against --set full. Never changes clocks: --clock-control none everywhere.
set -uo pipefail
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
W=/tmp/kprof-probe; mkdir -p $W
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv
ncu --version | tail -1; nvcc --version | tail -2 | head -1
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
} 2>&1 | tee $OUT/env.txt
nvcc -O2 -arch=sm_90 -lineinfo -o $W/kernels examples/programs/probe_kernels.cu -lnvToolsExt 2>&1 || \
  nvcc -O2 -arch=sm_90 -lineinfo -o $W/kernels examples/programs/probe_kernels.cu 2>&1
M=$(grep -v '^#' data/ncu-annotation-metrics.txt | grep . | paste -sd, -)
t() { local s=$EPOCHREALTIME; "$@" >/dev/null 2>&1; local rc=$?; awk -v a=$s -v b=$EPOCHREALTIME -v rc=$rc 'BEGIN{printf "%.2f s rc=%d", b-a, rc}'; }
echo "plain run: $(t $W/kernels 1)" | tee -a $OUT/timing.txt
echo "set full: $(t ncu --clock-control none --set full -f -o $W/full $W/kernels 1)" | tee -a $OUT/timing.txt
echo "metrics all launches: $(t ncu --clock-control none --metrics $M --csv --page raw --print-units base --log-file $W/all.csv $W/kernels 1)" | tee -a $OUT/timing.txt
echo "metrics first launch per kernel: $(t ncu --clock-control none --metrics $M --kernel-id ::regex:.*:1 --nvtx --csv --page raw --print-units base --log-file $W/first.csv $W/kernels 1)" | tee -a $OUT/timing.txt
ncu --clock-control none --metrics $M --kernel-id ::regex:.*:1 --nvtx --csv --page raw --print-units base --log-file $W/first.csv $W/kernels 1 > $W/first.stdout 2>&1
cp $W/first.csv $OUT/annotation_first_raw.csv; cp $W/all.csv $OUT/annotation_all_raw.csv
head -c 3000 $W/first.stdout
grep -c . $W/first.csv $W/all.csv
cut -d, -f1-8 $W/first.csv | head -20
