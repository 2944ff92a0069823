#!/usr/bin/env bash
# Device call (issue 27): tensor ops counted per instruction instead of by their totals (data/ncu-annotation-metrics.txt,
# src/collect/ncu/canonical.cpp: two replay passes fewer offline on GH100). That list cost 12 ms a kernel more and
# was reverted (bench/RESULTS.md §1a⁷): with the totals in data/ again, both lists below are the same until its
# per-instruction lines are put back (see the RESULTS section for them).
#   1. The counter pass alone on the many-kernel program (`diag_corpus 1 -tiny_launches`) with the previous list
#      (its tensor totals) and the new one, alternating, ROUNDS times: passes and replay per kernel.
#   2. bench/cost.sh on that program (PROGRAMS=corpus, one round of ncu --set full): the ratio.
#   3. The CUPTI annotation captures of every fixture program with matrix kernels, with the new list, archived (one
#      tgz per program): their tensor FLOPs are compared offline with the committed captures (older list).
#      While the call's time lasts (BUDGET_S, default 540 s from the start).
# Never changes clocks (ncu: --clock-control none). Results: summary.txt, table.txt, cost-summary.txt, *.tgz.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
T0=$(now); BUDGET_S=${BUDGET_S:-540}
left() { awk -v a=$T0 -v b=$(now) -v n=$BUDGET_S 'BEGIN{print int(n - (b - a))}'; }
R=/tmp/kprof-tensor; rm -rf $R; mkdir -p $R; S=$OUT/summary.txt; : > $S
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader)"
log "$(kprof --version)"
# The previous list: the new one with the per-instruction tensor lines swapped back for the five totals.
OLD=/tmp/kprof-data-oldtensor; rm -rf $OLD; cp -r data $OLD
{ grep -v 'sm__ops_path_tensor_' data/ncu-annotation-metrics.txt
  for t in bf16_dst_fp32 fp16 tf32_dst_fp32 fp8 fp64; do echo "sm__ops_path_tensor_src_$t.sum"; done
} > $OLD/ncu-annotation-metrics.txt
TABLE=$OUT/table.txt
printf '%-8s %-5s %7s %6s %7s %9s %8s\n' list round wall_s passes kernels replay_s med_ms > $TABLE
pass() {  # pass LIST-NAME DATA-DIR ROUND
  local o=$R/pass-$1-$3; local t0=$(now)
  KPROF_DATA_DIR=$2 timeout 200 kprof run --prof-type=annotation --counters-min-share=0 --kernel corpus \
    --out-root $o -- $D/diag_corpus 1 -tiny_launches > $o.out 2> $o.err
  local rc=$? w=$(dt $t0 $(now)) f; f=$(find $o -name counters.json | head -1)
  log "pass $1 round $3 rc=$rc ${w}s"
  printf '%-8s %-5s %7s %s\n' $1 $3 $w "$( [ -n "$f" ] && python3 - "$f" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1])); ks = [k["replay_wall_ms"] for k in d["kernels"]]
print("%6s %7d %9.2f %8.0f" % (d["passes"], len(ks), sum(ks) / 1000, statistics.median(ks)))
PY
)" >> $TABLE
}
for r in $(seq 1 ${ROUNDS:-2}); do pass old $OLD $r; pass new $ROOT/data $r; done
if [ "${SKIP_COST:-0}" != 1 ]; then
  PROGRAMS=corpus SKIP_PEERS=1 ROUNDS=1 STEP_TIMEOUT=200 bash bench/cost.sh > $R/cost.log 2>&1
  log "cost.sh rc=$? ($(left) s left)"
  [ -f /tmp/kprof-cost/summary.txt ] && cp /tmp/kprof-cost/summary.txt $OUT/cost-summary.txt
fi
STEP_TIMEOUT=200
for PROG in ${PROGS:-diag_corpus diag_holdout8 diag_holdout4 diag_holdout5 diag_holdout diag_holdout3 diag_holdout2 diag_torch}; do
  need=40; [ -x "$D/$PROG" ] || need=60
  if [ $(left) -lt $need ]; then log "stopped before $PROG: $(left) s left"; break; fi
  O=$R/$PROG; mkdir -p $O
  case $PROG in
    diag_corpus) step ${PROG}_cupti kprof run --prof-type=annotation --counters-min-share=0 --counters cupti --kernel $PROG --out $O/annotation-cupti -- $D/diag_corpus 1 ;;
    diag_torch) step ${PROG}_cupti kprof run --prof-type=annotation --counters-min-share=0 --counters cupti --kernel $PROG --out $O/annotation-cupti -- python3 examples/programs/diag_torch.py 2 ;;
    *) if [ -x "$D/$PROG" ]; then step ${PROG}_cupti kprof run --prof-type=annotation --counters-min-share=0 --counters cupti --kernel $PROG --out $O/annotation-cupti -- $D/$PROG 2
       else step ${PROG}_cupti kprof run --prof-type=annotation --counters-min-share=0 --counters cupti --kernel $PROG --out $O/annotation-cupti -- python3 examples/programs/$PROG.py 2 nocheck; fi ;;
  esac
done
# One archive of every capture's counter file (the device tool brings back a few files only).
(cd $R && find . -path '*annotation-cupti*' -name 'counters*.json' -o -path './pass-*' -name counters.json | tar czf $OUT/tensor-captures.tgz -T -)
cat $S; echo; cat $TABLE; [ -f $OUT/cost-summary.txt ] && tail -8 $OUT/cost-summary.txt
