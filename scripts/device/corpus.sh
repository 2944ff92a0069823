#!/usr/bin/env bash
# Device call: captures the diagnosis corpus (examples/programs/diag_corpus.cu and diag_torch.py) in every form
# the diagnosis tests replay on the CPU (tests/fixtures/h200-corpus/):
#   - plain runs (each case prints its CUDA-event time and rate),
#   - kprof annotation with ncu counters and with CUPTI counters (metric list: $METRICS, default the shipped
#     data/ncu-annotation-metrics.txt),
#   - kprof ncu mode (ncu --set full on one launch per kernel and launch shape, plus the tracer pass).
# Never changes clocks (--clock-control none). Expects build/dist from scripts/device/pack.sh (carried).
# Results: $OUT/corpus.tgz and $OUT/corpus-summary.txt.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-corpus; rm -rf $R; mkdir -p $R
S=$R/summary.txt; : > $S
STEP_TIMEOUT=${STEP_TIMEOUT:-240}
if [ -n "${METRICS:-}" ]; then
  DATA=/tmp/kprof-corpus-data; rm -rf $DATA; cp -r $ROOT/data $DATA; cp $METRICS $DATA/ncu-annotation-metrics.txt
  export KPROF_DATA_DIR=$DATA
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a $S
ncu --version | tail -1 | tee -a $S
kprof --version | tee -a $S
O=$R/profiles
PY="python3 examples/programs/diag_torch.py"

step plain_corpus       $D/diag_corpus 1
step plain_torch        $PY 2
step annot_corpus_ncu   kprof run --prof-type=annotation --counters-min-share=0 --counters ncu --kernel diag_corpus --out $O/annot_corpus_ncu -- $D/diag_corpus 1
# ncu's per-launch-config filter, checked: every corpus kernel must have been profiled (else the kernel-id fallback).
n=$(grep -c '^"[0-9]' $O/annot_corpus_ncu/ncu/ncu_raw.csv 2>/dev/null || echo 0); log "annot_corpus_ncu profiled $n launches"
if [ "$n" -lt 20 ]; then
  export KPROF_NCU_FILTER=kernel-id
  step annot_corpus_ncu_kid kprof run --prof-type=annotation --counters-min-share=0 --counters ncu --kernel diag_corpus --out $O/annot_corpus_ncu_kid -- $D/diag_corpus 1
fi
step annot_corpus_cupti kprof run --prof-type=annotation --counters-min-share=0 --counters cupti --kernel diag_corpus --out $O/annot_corpus_cupti -- $D/diag_corpus 1
step annot_torch_ncu    kprof run --prof-type=annotation --counters-min-share=0 --counters ncu --kernel diag_torch --out $O/annot_torch_ncu -- $PY 2
step annot_torch_cupti  kprof run --prof-type=annotation --counters-min-share=0 --counters cupti --kernel diag_torch --out $O/annot_torch_cupti -- $PY 2
step ncu_corpus         kprof run --prof-type=ncu --kernel diag_corpus --out $O/ncu_corpus -- $D/diag_corpus 1
[ -n "${NCU_TORCH:-}" ] && step ncu_torch kprof run --prof-type=ncu --kernel diag_torch --out $O/ncu_torch -- $PY 1

du -sh $O/* | tee -a $S
# Keep the reports only when small; the CSV pages hold what the tests read.
find $R -name '*.ncu-rep' -size +12M -exec sh -c 'echo "dropped large $1"; rm "$1"' _ {} \; | tee -a $S
tar czf $OUT/corpus.tgz -C $R . && cp $S $OUT/corpus-summary.txt
echo "=== plain corpus"; cat $R/plain_corpus.out
echo "=== summary"; cat $S
