#!/usr/bin/env bash
# Device call (issue 27): what the ~110 ms a profiled kernel costs besides its passes is made of.
# The annotation counter pass (CUPTI range profiler, kernel replay) with metric lists of different sizes, on
#   footprint 0      six ~40 us kernels of distinct names (examples/programs/footprint.cu), and
#   footprint 0 2 --all-launches   the same six launched twice, every launch profiled (a second invocation of the
#                    same function: is the fixed part per function, or per profiled launch?), and
#   diag_corpus 1 -tiny_launches   the 22 kernels of the many-kernel program (0.2-7 ms each).
# Lists (KPROF_DATA_DIR copies of data/): one metric (1 pass), the shipped list without the smsp__sass_* metrics,
# without stall reasons and tensor ops by precision (lean), and the shipped list.
# CURVE=1: instead, lists of 1, 2, 4, 5, 7, 11, 13 and 16 passes on footprint, and of 7 and 13 on diag_corpus.
# COMPONENTS=1: the throughput breakdowns replaced by their components (footprint and diag_corpus).
# Never changes clocks. Results: summary.txt (table last), one archive of the counter files.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-fixed; rm -rf $R; mkdir -p $R; S=$OUT/summary.txt; : > $S
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader)"
log "$(kprof --version)"
mk() {  # mk NAME FILTER-COMMAND: a data dir whose annotation list is the shipped one through FILTER
  local d=/tmp/kprof-data-$1; rm -rf $d; cp -r data $d
  eval "$2" < data/ncu-annotation-metrics.txt > $d/ncu-annotation-metrics.txt
}
mk one "grep -x 'sm__cycles_elapsed.avg'"
mk nosass "grep -v 'smsp__sass_'"
mk lean "grep -v -E 'stalled_|ops_path_tensor'"
mk shipped "cat"
TABLE=$R/table.txt
printf '%-22s %-8s %7s %6s %8s %10s %8s %8s %9s\n' program list wall_s passes kernels replay_med min max setup_ms > $TABLE
facts() {  # passes kernels median min max replay ms per profiled launch, setup ms of the counter file under $1
  local f; f=$(find "$1" -name counters.json | head -1)
  [ -n "$f" ] || { echo "- - - - - -"; return; }
  cp "$f" $R/counters-$2.json
  python3 - "$f" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
ks = [k.get("replay_wall_ms", 0) for k in d.get("kernels", [])]
if not ks: ks = [0]
print(d.get("passes"), len(ks), "%.0f %.0f %.0f %.0f" % (statistics.median(ks), min(ks), max(ks), d.get("setup_ms", 0)))
PY
}
run() {  # run LABEL LIST EXTRA-FLAGS -- program...
  local label=$1 list=$2 extra=$3; shift 4
  local o=$R/out-$label-$list; rm -rf $o
  local t0=$(now)
  KPROF_DATA_DIR=/tmp/kprof-data-$list timeout 200 kprof run --prof-type=annotation --counters-min-share=0 $extra \
    --kernel $label --out-root $o -- "$@" > $R/$label-$list.out 2> $R/$label-$list.err
  local rc=$? w=$(dt $t0 $(now))
  log "$label $list rc=$rc ${w}s"
  printf '%-22s %-8s %7s %6s %8s %10s %8s %8s %9s\n' $label $list $w $(facts $o $label-$list) >> $TABLE
}
t0=$(now); $D/footprint 0 > /dev/null; log "footprint plain $(dt $t0 $(now))s"
if [ "${CURVE:-0}" = 1 ]; then
  # The cost against the pass count between 1 and 16 (CUPTI's offline counts for GH100 in brackets): is there a
  # fixed cost from the second pass on, or do the first passes cost more than the later ones?
  TP='gpu__compute_memory_throughput|l1tex__throughput|lts__throughput'
  mk hit "grep -x 'lts__t_sector_hit_rate.pct'"                          # [2]
  mk ltsthr "grep -x 'lts__throughput.avg.pct_of_peak_sustained_elapsed'" # [4]
  mk l1thr "grep -x 'l1tex__throughput.avg.pct_of_peak_sustained_active'" # [5]
  mk core "grep -v -E '$TP|stalled|ops_path'"                             # [7]
  mk nostall "grep -v -E '$TP|stalled'"                                   # [11]
  mk noprec "grep -v -E '$TP|ops_path'"                                   # [13]
  for list in one hit ltsthr l1thr core nostall noprec shipped; do run footprint $list "" -- $D/footprint 0; done
  for list in core noprec; do run diag_corpus $list "" -- $D/diag_corpus 1 -tiny_launches; done
  (cd $R && tar czf $OUT/curve.tgz *.json *.err table.txt)
  cat $S $TABLE > $OUT/table.txt; cat $TABLE; exit 0
fi
if [ "${COMPONENTS:-0}" = 1 ]; then
  # The throughput breakdowns replaced by the components that set them on the H200 fixtures (331 kernels of ncu
  # --set full: l1tex__throughput = max of the L1 data pipe's LSU wavefronts and L1-to-XBAR requests; the memory
  # throughput = max of DRAM cycles active, L1's and L2's XBAR and tag components): l1mem keeps lts__throughput,
  # all replaces it by L2's sector and XBAR components too.
  L1C='l1tex__data_pipe_lsu_wavefronts l1tex__m_l1tex2xbar_req_cycles_active l1tex__texin_sm2tex_req_cycles_active'
  MEMC='dram__cycles_active lts__xbar2lts_cycles_active lts__t_tag_requests lts__lts2xbar_cycles_active'
  comps() { for m in $L1C; do echo $m.avg.pct_of_peak_sustained_active; echo $m.avg.pct_of_peak_sustained_elapsed; done
            for m in $MEMC "$@"; do echo $m.avg.pct_of_peak_sustained_elapsed; done; }
  mk l1mem "{ grep -v -E 'gpu__compute_memory_throughput|l1tex__throughput'; comps; }"
  mk all "{ grep -v -E 'gpu__compute_memory_throughput|l1tex__throughput|lts__throughput'; comps lts__t_sectors lts__d_sectors; }"
  for list in l1mem all shipped; do run footprint $list "" -- $D/footprint 0; done
  for list in l1mem all shipped; do run diag_corpus $list "" -- $D/diag_corpus 1 -tiny_launches; done
  # The values against the breakdowns themselves (shipped list) on the corpus, kernel by kernel.
  python3 - $R <<'PY' | tee -a $TABLE
import json, sys
R = sys.argv[1]
def vals(n):
    try: return {k["mangled"]: k.get("values", {}) for k in json.load(open(f"{R}/counters-diag_corpus-{n}.json"))["kernels"]}
    except (OSError, KeyError): return {}
ref, l1m, al = vals("shipped"), vals("l1mem"), vals("all")
a = ".avg.pct_of_peak_sustained_active"; e = ".avg.pct_of_peak_sustained_elapsed"
def mx(v, names, suf): return max((v.get(n + suf, -1) for n in names), default=-1)
L1 = ["l1tex__data_pipe_lsu_wavefronts", "l1tex__m_l1tex2xbar_req_cycles_active", "l1tex__texin_sm2tex_req_cycles_active"]
MEM = ["dram__cycles_active", "lts__xbar2lts_cycles_active", "lts__t_tag_requests", "lts__lts2xbar_cycles_active"]
print("kernel                      l1(ref) l1(comp)  mem(ref) mem(comp)  l2(ref) l2(comp)")
for k, v in ref.items():
    c = l1m.get(k, {}); d = al.get(k, {})
    print("%-27s %7.1f %8.1f %9.1f %9.1f %8.1f %8.1f" % (k[:27], v.get("l1tex__throughput" + a, -1), mx(c, L1, a),
          v.get("gpu__compute_memory_throughput" + e, -1), max(mx(c, L1, e), mx(c, MEM, e)),
          v.get("lts__throughput" + e, -1), mx(d, MEM[1:] + ["lts__t_sectors", "lts__d_sectors"], e)))
PY
  (cd $R && tar czf $OUT/components.tgz *.json *.err table.txt)
  cat $S $TABLE > $OUT/table.txt; cat $TABLE; exit 0
fi
for list in one nosass lean shipped; do run footprint $list "" -- $D/footprint 0; done
for list in one shipped; do run footprint_x2_all $list --all-launches -- $D/footprint 0 2; done
t0=$(now); $D/diag_corpus 1 -tiny_launches > /dev/null; log "diag_corpus plain $(dt $t0 $(now))s"
for list in one lean shipped; do run diag_corpus $list "" -- $D/diag_corpus 1 -tiny_launches; done
# Per corpus kernel: replay with the shipped list against one metric, and the slope per extra pass.
python3 - $R <<'PY' | tee -a $TABLE
import json, sys
R = sys.argv[1]
def load(n):
    try: d = json.load(open(f"{R}/counters-diag_corpus-{n}.json"))
    except OSError: return None, {}
    return d.get("passes"), {k["mangled"]: k.get("replay_wall_ms", 0) for k in d.get("kernels", [])}
p1, one = load("one"); ps, shipped = load("shipped")
if one and shipped and p1 and ps:
    print("kernel                         one_ms  shipped_ms  per_extra_pass_ms")
    for m in shipped:
        if m in one:
            print("%-30s %7.0f %10.0f %12.1f" % (m[:30], one[m], shipped[m], (shipped[m] - one[m]) / (ps - p1)))
PY
(cd $R && tar czf $OUT/fixed.tgz *.json *.err table.txt)
cat $S $TABLE > $OUT/table.txt
cat $TABLE
