#!/usr/bin/env bash
# One device call: captures the diagnosis corpus (examples/programs/diag_corpus.cu and diag_torch.py) in every form
# the diagnosis tests replay on the CPU:
#   - plain runs (each case prints its CUDA-event time and rate),
#   - kprof annotation with ncu counters and with CUPTI counters (metric list: $METRICS, default
#     scripts/device/corpus-metrics.txt, a superset of the shipped annotation list),
#   - ncu --set full (first launch of each kernel for the C++ corpus, every launch for the Python one), with the
#     raw, details and source pages exported.
# Never changes clocks (--clock-control none). Expects build/dist from scripts/device/pack.sh (carried).
# Results: $OUT/corpus.tgz and $OUT/summary.txt.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd); cd "$ROOT"
D=$ROOT/build/dist; OUT=${OUT:-/tmp/kprof-out}; R=/tmp/kprof-corpus; rm -rf $R; mkdir -p $R $OUT
S=$R/summary.txt; : > $S
. $ROOT/scripts/device/steps.sh
METRICS=${METRICS:-$ROOT/scripts/device/corpus-metrics.txt}
DATA=/tmp/kprof-corpus-data; rm -rf $DATA; cp -r $ROOT/data $DATA; cp $METRICS $DATA/ncu-annotation-metrics.txt
export KPROF_DATA_DIR=$DATA PATH=$D:$PATH PYTHONUNBUFFERED=1
T() { timeout ${TMO:-240} "$@"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a $S
ncu --version | tail -1 | tee -a $S
kprof --version | tee -a $S
O=$R/profiles; N=$R/ncu; mkdir -p $N
PY="python3 examples/programs/diag_torch.py"

step plain_corpus      T $D/diag_corpus 1
step plain_torch       T $PY 2
step annot_corpus_ncu   T kprof run --prof_type=annotation --kernel diag_corpus --out $O/annot_corpus_ncu -- $D/diag_corpus 1
step annot_corpus_cupti T kprof run --prof_type=annotation --counters cupti --kernel diag_corpus --out $O/annot_corpus_cupti -- $D/diag_corpus 1
step annot_torch_ncu    T kprof run --prof_type=annotation --all-launches --kernel diag_torch --out $O/annot_torch_ncu -- $PY 2
step annot_torch_cupti  T kprof run --prof_type=annotation --all-launches --counters cupti --kernel diag_torch --out $O/annot_torch_cupti -- $PY 2

export_pages() {  # $1 = report base name in $N
  ncu --import $N/$1.ncu-rep --csv --page raw --print-units base > $N/$1_raw.csv 2> $N/$1_raw.err
  ncu --import $N/$1.ncu-rep --csv --page details --print-units base > $N/$1_details.csv 2> $N/$1_details.err
  ncu --import $N/$1.ncu-rep --csv --page source --print-source sass,cuda > $N/$1_source.csv 2> $N/$1_source.err
  ncu --import $N/$1.ncu-rep --csv --page session > $N/$1_session.csv 2> $N/$1_session.err
}
step ncu_full_corpus T ncu --clock-control none --set full --import-source yes --nvtx --kernel-id ::regex:.*:1 \
  -f -o $N/corpus_full $D/diag_corpus 1
step ncu_export_corpus export_pages corpus_full
step ncu_full_torch  T ncu --clock-control none --set full --import-source yes --nvtx -f -o $N/torch_full $PY 1
step ncu_export_torch export_pages torch_full

ls -la $N | tee -a $S
du -sh $O/* | tee -a $S
# Keep the reports only when small; the CSV pages hold what the tests read.
find $R -name '*.ncu-rep' -size +12M -exec sh -c 'echo "dropped large $1"; rm "$1"' _ {} \; | tee -a $S
find $R -name '*.kptrace' -size +12M -exec sh -c 'echo "dropped large $1"; rm "$1"' _ {} \; | tee -a $S
tar czf $OUT/corpus.tgz -C $R . && cp $S $OUT/summary.txt
ls -la $OUT
echo "=== plain corpus"; cat $R/plain_corpus.out
echo "=== summary"; cat $S
