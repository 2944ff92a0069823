#!/usr/bin/env bash
# Device call (issues 23 and 27): the annotation metric list after the IMMA and FMA-heavy counters were added.
#   1. Set 7's program with CUPTI counters (the default): the counter file's passes, and int_index_math's FMA
#      reading, integer share and cause (the heavy sub-pipe counted by CUPTI itself, not estimated).
#   2. The many-kernel cost benchmark (bench/cost.sh, PROGRAMS=corpus, one round of ncu --set full): the ratio
#      and the passes with the longer list.
# Never changes clocks (ncu: --clock-control none). Results: summary.txt, one archive.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=$OUT/logs; mkdir -p $R; S=$OUT/summary.txt; : > $S
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader)"
o=$OUT/out-h7
t0=$(now); timeout 200 $D/kprof run --prof-type=annotation --kernel diag_holdout7 --out-root $o -- $D/diag_holdout7 \
  > $R/h7.out 2> $R/h7.err; log "holdout7 annotation (cupti) rc=$? $(dt $t0 $(now)) s"
p=$(find $o -name profile.json | head -1); c=$(find $o -name counters.json | head -1)
[ -n "$p" ] && python3 - "$p" "$c" <<'PY' | tee -a $S
import json, sys
d = json.load(open(sys.argv[1]))
print("counter passes:", json.load(open(sys.argv[2])).get("passes") if sys.argv[2] else "-")
for st in d["stages"]:
    for g in st["kernels"]:
        m, a = g["metrics"], g.get("analysis") or {}
        print("%-28s cause=%-18s fma=%s int_share=%s tensor=%s imma=%s" % (st["name"][:28], a.get("bottleneck", {}).get("cause"),
              m.get("fma_pipe_pct") and round(m["fma_pipe_pct"], 1), m.get("fma_integer_share") and round(m["fma_integer_share"], 2),
              m.get("tensor_pipe_pct") and round(m["tensor_pipe_pct"], 1), m.get("tensor_pipe_imma")))
        if st["name"].startswith("int_index"): print("  fma provenance:", m["provenance"].get("fma_pipe_pct"))
PY
PROGRAMS=corpus SKIP_PEERS=1 ROUNDS=1 STEP_TIMEOUT=240 timeout 420 bash bench/cost.sh > $R/cost.out 2> $R/cost.err
log "cost.sh rc=$?"
sed -n '/## Cost against/,/^$/p' $R/cost.out | tee -a $S
f=$(find /tmp/kprof-cost/profiles/corpus -name counters.json | head -1)
[ -n "$f" ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('corpus counter passes:', d.get('passes'), 'kernels:', len(d['kernels']), 'replay s: %.2f' % (sum(k.get('replay_wall_ms',0) for k in d['kernels'])/1e3))" "$f" | tee -a $S
# The device tool brings back a limited number of files: logs and the set-7 artifact travel as one archive
# (bench/cost.sh leaves its own cost.tgz and cost-summary.txt).
tar czf $OUT/check-list.tgz -C $OUT logs out-h7 2>/dev/null
rm -rf $R $o
cat $S
