#!/usr/bin/env bash
# Device call (issue 27): cheaper forms of the same annotation list (bench/RESULTS.md §1a⁷). Each group of L2 and L1
# counters costs the CUPTI pass 20-30 ms a kernel whatever the pass count (scripts/device/cost-groups.sh); here:
#   shipped    data/ncu-annotation-metrics.txt
#   sorted     the same lines in bytewise name order (`LC_ALL=C sort`; the call of §1a⁷ used the device locale's
#              collation, 16 passes against the bytewise order's 15)
#   hitsums    the two hit-rate ratios replaced by their lookup hit and miss sums (kprof does not read the sums: a
#              cost comparison only)
#   sorthits   both
#   nohit      no hit rates at all (what the sums could save at most)
# on `footprint 0` (ROUNDS rounds, default 3, alternating), then shipped against the cheapest on the corpus
# (`diag_corpus 1 -tiny_launches`, 2 rounds), one corpus run with the ratios and the sums (do they agree?), and
# bench/cost.sh on the multi-stream program (PROGRAMS=streams, one round) with the shipped list.
# Since the CUPTI collector sorts the names itself (src/collect/cupti/range_profiler.cpp), "shipped" and "sorted"
# are the same configuration with kprof of §1a⁷ or later: compare the orders with an earlier build.
# Never changes clocks. Results: table.txt (summary last), variants.tgz (counter files), cost-streams-summary.txt.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-variants; rm -rf $R; mkdir -p $R; S=$OUT/summary.txt; : > $S
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader)"
log "$(kprof --version)"
L=data/ncu-annotation-metrics.txt
sums() { sed 's/^lts__t_sector_hit_rate.pct$/lts__t_sectors_lookup_hit.sum\nlts__t_sectors_lookup_miss.sum/;
              s/^l1tex__t_sector_hit_rate.pct$/l1tex__t_sectors_lookup_hit.sum\nl1tex__t_sectors_lookup_miss.sum/'; }
mk() { local d=/tmp/kprof-data-$1; rm -rf $d; cp -r data $d; grep -v '^#' $L | grep . | eval "$2" > $d/ncu-annotation-metrics.txt; }
mk shipped cat
mk sorted "LC_ALL=C sort"
mk hitsums sums
mk sorthits "sums | LC_ALL=C sort"
mk nohit "grep -v hit_rate"
mk both "{ cat; echo lts__t_sectors_lookup_hit.sum; echo lts__t_sectors_lookup_miss.sum; echo l1tex__t_sectors_lookup_hit.sum; echo l1tex__t_sectors_lookup_miss.sum; }"
TABLE=$R/table.txt
counter_pass_header > $TABLE
run() { counter_pass "$@"; }  # run PROGRAM-LABEL LIST ROUND -- program... (steps.sh)
ORDER="shipped sorted hitsums sorthits nohit"
for r in $(seq 1 ${ROUNDS:-3}); do
  for g in $ORDER; do run footprint $g $r -- $D/footprint 0; done
  ORDER=$(echo $ORDER | tr ' ' '\n' | tac | tr '\n' ' ')
done
med() { awk -v p=$1 -v l=$2 'NF>=7 && $1==p && $2==l {print $6}' $TABLE | sort -n | awk '{a[NR]=$1} END{print (NR? a[int((NR+1)/2)] : 99999)}'; }
BEST=shipped; BM=$(med footprint shipped)
for l in sorted hitsums sorthits; do m=$(med footprint $l); [ "$m" -lt "$BM" ] && BEST=$l BM=$m; done
log "cheapest equivalent list on footprint: $BEST ($BM ms a kernel; shipped $(med footprint shipped))"
for r in 1 2; do for g in shipped $BEST; do run diag_corpus $g $r -- $D/diag_corpus 1 -tiny_launches; done; done
run diag_corpus both 1 -- $D/diag_corpus 1 -tiny_launches
python3 - $R/counters-diag_corpus-both-1.json <<'PY' | tee -a $TABLE
import json, sys
try: d = json.load(open(sys.argv[1]))
except (OSError, ValueError): sys.exit(0)
print("hit rates: the ratio metric against hit / (hit + miss), corpus kernels")
for k in d["kernels"]:
    v = k["values"]; row = []
    for u in ("lts", "l1tex"):
        h, m = v.get(f"{u}__t_sectors_lookup_hit.sum"), v.get(f"{u}__t_sectors_lookup_miss.sum")
        row.append("%6.2f %6.2f" % (v.get(f"{u}__t_sector_hit_rate.pct", -1), 100 * h / (h + m) if h is not None and m is not None and h + m > 0 else -1))
    print("%-30s L2 %s   L1 %s" % (k["mangled"][:30], row[0], row[1]))
PY
PROGRAMS=streams SKIP_PEERS=1 ROUNDS=1 STEP_TIMEOUT=200 bash bench/cost.sh > $R/cost-streams.log 2>&1
log "cost.sh streams rc=$?"
[ -f /tmp/kprof-cost/summary.txt ] && cp /tmp/kprof-cost/summary.txt $OUT/cost-streams-summary.txt
(cd $R && tar czf $OUT/variants.tgz *.json table.txt cost-streams.log)
cp $TABLE $OUT/table.txt
cat $S; cat $TABLE | tail -40; [ -f $OUT/cost-streams-summary.txt ] && tail -12 $OUT/cost-streams-summary.txt
