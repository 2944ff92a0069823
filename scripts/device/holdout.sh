#!/usr/bin/env bash
# Device call: captures the held-out diagnosis set (examples/programs/diag_holdout.py: PyTorch, cuBLAS, cuDNN,
# flash-attention and CUB kernels nobody here wrote) in the three forms the diagnosis tests replay: annotation with
# ncu counters, with CUPTI counters, and ncu mode (--set full). Never changes clocks. Expects build/dist from
# scripts/device/pack.sh (carried). Results: $OUT/holdout.tgz and $OUT/holdout-summary.txt.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-holdout; rm -rf $R; mkdir -p $R
S=$R/summary.txt; : > $S
STEP_TIMEOUT=${STEP_TIMEOUT:-240}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a $S
ncu --version | tail -1 | tee -a $S
kprof --version | tee -a $S
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' | tee -a $S
O=$R/profiles
PY="python3 examples/programs/diag_holdout.py"
step plain_holdout       $PY 2
step annot_holdout_ncu   kprof run --prof-type=annotation --counters-min-share=0 --counters ncu --kernel diag_holdout --out $O/annot_holdout_ncu -- $PY 2 nocheck
step annot_holdout_cupti kprof run --prof-type=annotation --counters-min-share=0 --counters cupti --kernel diag_holdout --out $O/annot_holdout_cupti -- $PY 2 nocheck
step ncu_holdout         kprof run --prof-type=ncu --kernel diag_holdout --out $O/ncu_holdout -- $PY 1 nocheck
du -sh $O/* | tee -a $S
find $R -name '*.ncu-rep' -size +12M -exec sh -c 'echo "dropped large $1"; rm "$1"' _ {} \; | tee -a $S
tar czf $OUT/holdout.tgz -C $R . && cp $S $OUT/holdout-summary.txt
echo "=== plain"; tail -3 $R/plain_holdout.out; tail -3 $R/plain_holdout.err
echo "=== summary"; cat $S
