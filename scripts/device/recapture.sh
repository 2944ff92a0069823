#!/usr/bin/env bash
# Device call (issue 23): re-captures the annotation forms of held-out sets whose captures predate counters the
# rules now read (shared-atomic wavefronts, the indexed constant cache, every stall reason, the FMA-heavy sub-pipe):
# annotation with ncu counters and with CUPTI counters, as scripts/device/holdout.sh takes them, for
# PROGS="diag_holdout7 diag_holdout9 diag_holdout2" (CUDA programs from build/dist, Python ones from
# examples/programs). The labels stay as they were written blind. Never changes clocks. Results: one archive per
# program with the two artifacts' raw collector files (trace.kptrace, ncu/ncu_raw.csv, counters.json), summary.txt.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-recapture; rm -rf $R; mkdir -p $R
S=$OUT/summary.txt; : > $S
STEP_TIMEOUT=${STEP_TIMEOUT:-200}
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader)"
log "$(kprof --version)"
for PROG in ${PROGS:-diag_holdout7 diag_holdout9 diag_holdout2}; do
  if [ -x "$D/$PROG" ]; then PY="$PROG"; NC=""; else PY="python3 examples/programs/$PROG.py"; NC=nocheck; fi
  O=$R/$PROG; mkdir -p $O
  step ${PROG}_ncu   kprof run --prof-type=annotation --counters-min-share=0 --counters ncu --kernel $PROG --out $O/annotation-ncu -- $PY 2 $NC
  step ${PROG}_cupti kprof run --prof-type=annotation --counters-min-share=0 --counters cupti --kernel $PROG --out $O/annotation-cupti -- $PY 2 $NC
  for a in $O/annotation-ncu $O/annotation-cupti; do
    c=$(ls $a/counters*.json 2>/dev/null | head -1)
    [ -n "$c" ] && log "  $(basename $a): counters passes $(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('passes'))" $c)"
  done
  (cd $O && tar czf $OUT/$PROG-annotation.tgz $(find . -name trace.kptrace -o -name ncu_raw.csv -o -name 'counters*.json' | grep -v '/compiled/'))
done
cat $S
