#!/usr/bin/env bash
# Device call (issue 27): does a profiled kernel's replay cost grow with the program's device memory footprint?
# `footprint <pad MiB>` allocates and touches a pad no kernel reads, then runs six short kernels of distinct names.
# For each pad: the plain run, kprof's default annotation pass (CUPTI counters; the counter file's passes and
# replay wall time per kernel), the same with a lean metric list (no stall reasons, no tensor ops by precision:
# fewer passes, so the per-pass slope), and `ncu --set full` at two pads. Never changes clocks (ncu:
# --clock-control none). Results: summary.txt, table last.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=$OUT/logs; mkdir -p $R; S=$OUT/summary.txt; : > $S
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv,noheader)"
LEAN=/tmp/kprof-lean-data; rm -rf $LEAN; cp -r data $LEAN
grep -v -E 'stalled_|ops_path_tensor' data/ncu-annotation-metrics.txt > $LEAN/ncu-annotation-metrics.txt
facts() {  # passes, kernels, median replay ms per kernel, setup ms of the newest counters.json under $1
  local f; f=$(find "$1" -name counters.json -printf '%T@ %p\n' 2>/dev/null | sort -n | tail -1 | cut -d' ' -f2)
  [ -n "$f" ] || { echo "- - - -"; return; }
  python3 - "$f" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
ks = [k.get("replay_wall_ms", 0) for k in d.get("kernels", [])]
print(d.get("passes"), len(ks), "%.0f" % (statistics.median(ks) if ks else 0), "%.0f" % d.get("setup_ms", 0))
PY
}
TABLE=$OUT/table.txt; : > $TABLE
row() { printf '%-7s %-16s %8s %7s %8s %12s %9s\n' "$@" >> $TABLE; }
row pad_MiB run wall_s passes kernels replay_ms/k setup_ms
for pad in 0 4096 16384 65536; do
  t0=$(now); $D/footprint $pad > $R/plain-$pad.out 2>&1; rc=$?; w=$(dt $t0 $(now))
  log "pad $pad plain rc=$rc $w s"; row $pad plain $w - - - -
  for list in shipped lean; do
    [ $list = lean ] && [ $pad != 0 ] && [ $pad != 16384 ] && continue
    dd=$ROOT/data; [ $list = lean ] && dd=$LEAN
    o=$OUT/out-$pad-$list; rm -rf $o
    t0=$(now); KPROF_DATA_DIR=$dd timeout 200 $D/kprof run --prof-type=annotation --counters-min-share=0 \
      --kernel footprint --out-root $o -- $D/footprint $pad > $R/kprof-$pad-$list.out 2> $R/kprof-$pad-$list.err
    rc=$?; w=$(dt $t0 $(now)); log "pad $pad annotation $list rc=$rc $w s"
    row $pad "annotation-$list" $w $(facts $o)
  done
  if [ $pad = 0 ] || [ $pad = 16384 ]; then
    t0=$(now); timeout 200 ncu --clock-control none --set full -f -o $OUT/ncu-$pad $D/footprint $pad \
      > $R/ncu-$pad.out 2> $R/ncu-$pad.err; rc=$?; w=$(dt $t0 $(now))
    log "pad $pad ncu full rc=$rc $w s"; row $pad ncu-full $w - - - -
    rm -f $OUT/ncu-$pad.ncu-rep
  fi
done
find $OUT -name '*.ncu-rep' -delete
# The device tool brings back a limited number of files: the logs and artifacts travel as one archive.
tar czf $OUT/footprint-artifacts.tgz -C $OUT logs $(cd $OUT && ls -d out-* 2>/dev/null) 2>/dev/null && rm -rf $OUT/out-* $R
cat $TABLE
