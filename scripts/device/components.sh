#!/usr/bin/env bash
# Device call (issue 27): the annotation list with the throughput breakdowns replaced by their components
# (data/ncu-annotation-metrics.txt, src/collect/ncu/canonical.cpp).
#   1. bench/cost.sh on the many-kernel program (PROGRAMS=corpus, one round of ncu --set full): the ratio.
#   2. The annotation captures of the diagnosis fixtures retaken with this list, both counter sources, as
#      scripts/device/corpus.sh and holdout.sh take them: the corpus (diag_corpus 1, diag_torch.py 2) and the
#      held-out programs of PROGS (default: the CUDA sets 7 and 9, then the Python sets), while the call's time
#      lasts (BUDGET_S, default 540 s from the start). One archive of raw collector files per program.
# Never changes clocks (ncu: --clock-control none). Results: cost-summary.txt, summary.txt, *.tgz.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
T0=$(now); BUDGET_S=${BUDGET_S:-540}
left() { awk -v a=$T0 -v b=$(now) -v n=$BUDGET_S 'BEGIN{print int(n - (b - a))}'; }
S=$OUT/summary.txt; : > $S
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader)"
log "$(kprof --version)"
if [ "${SKIP_COST:-0}" != 1 ]; then
  PROGRAMS=corpus SKIP_PEERS=1 ROUNDS=1 STEP_TIMEOUT=200 bash bench/cost.sh > $OUT/cost.log 2>&1
  log "cost.sh rc=$? ($(left) s left)"
  [ -f /tmp/kprof-cost/summary.txt ] && cp /tmp/kprof-cost/summary.txt $OUT/cost-summary.txt
  f=$(find /tmp/kprof-cost/profiles/corpus/annotation-1 -name counters.json | head -1)  # the first default run
  [ -n "$f" ] && log "  corpus counters: $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); ks=d['kernels']; print('passes', d['passes'], 'kernels', len(ks), 'replay %.2f s' % (sum(k['replay_wall_ms'] for k in ks)/1000))" $f)"
fi
R=/tmp/kprof-recapture; rm -rf $R; mkdir -p $R
STEP_TIMEOUT=200
capture() {  # capture NAME COMMAND...: annotation with ncu and with CUPTI counters into $R/NAME, archived
  local name=$1; shift; local O=$R/$name; mkdir -p $O
  step ${name}_ncu   kprof run --prof-type=annotation --counters-min-share=0 --counters ncu --kernel $name --out $O/annotation-ncu -- "$@"
  step ${name}_cupti kprof run --prof-type=annotation --counters-min-share=0 --counters cupti --kernel $name --out $O/annotation-cupti -- "$@"
  local files; files=$(cd $O && find . -name trace.kptrace -o -name ncu_raw.csv -o -name 'counters*.json' | grep -v '/compiled/')
  if [ -n "$files" ]; then (cd $O && tar czf $OUT/$name-annotation.tgz $files); else log "  $name: no raw files to archive"; fi
}
for PROG in ${PROGS:-diag_corpus diag_holdout7 diag_holdout9 diag_torch diag_holdout diag_holdout2 diag_holdout3 diag_holdout4 diag_holdout5 diag_holdout6 diag_holdout8}; do
  need=40; [ -x "$D/$PROG" ] || need=100
  if [ $(left) -lt $need ]; then log "stopped before $PROG: $(left) s left"; break; fi
  case $PROG in
    diag_corpus) capture $PROG $D/diag_corpus 1 ;;
    diag_torch) capture $PROG python3 examples/programs/diag_torch.py 2 ;;
    *) if [ -x "$D/$PROG" ]; then capture $PROG $D/$PROG 2; else capture $PROG python3 examples/programs/$PROG.py 2 nocheck; fi ;;
  esac
done
cat $S
