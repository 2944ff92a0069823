#!/usr/bin/env bash
# Device call (issue 27): what each group of the annotation metric list costs the CUPTI counter pass. The pass count
# does not say it (bench/RESULTS.md §1a⁷: two passes fewer cost 12 ms a kernel more), so each row is the shipped list
# less one group (KPROF_DATA_DIR copies of data/), on `footprint 0` (six ~40 us kernels of distinct names),
# alternating over ROUNDS (default 2) rounds; then the cheapest candidate lists on `diag_corpus 1 -tiny_launches`.
# Never changes clocks. Results: table.txt (summary last), groups.tgz (counter files).
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-groups; rm -rf $R; mkdir -p $R; S=$OUT/summary.txt; : > $S
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader)"
log "$(kprof --version)"
L=data/ncu-annotation-metrics.txt
mk() {  # mk NAME ERE: a data dir whose list is the shipped one less the lines matching ERE ('' keeps all)
  local d=/tmp/kprof-data-$1; rm -rf $d; cp -r data $d
  if [ -n "$2" ]; then grep -v -E "$2" $L > $d/ncu-annotation-metrics.txt; fi
}
A='\.avg\.pct_of_peak_sustained_(active|elapsed)$'
declare -A G=(
  [shipped]=''
  [lts_hit]='^lts__t_sector_hit_rate'
  [lts_bytes]='^lts__t_bytes'
  [lts_tsect]='^lts__t_sectors\.avg'
  [lts_dsect]='^lts__d_sectors\.avg'
  [lts_tag]='^lts__t_tag_requests'
  [lts_xbar]='^lts__(xbar2lts|lts2xbar)'
  [lts_all]='^lts__'
  [dram]='^dram__'
  [l1comp]='^l1tex__(data_pipe_lsu_wavefronts|m_l1tex2xbar_req_cycles_active|texin_sm2tex_req_cycles_active)\.avg'
  [l1_misc]='^l1tex__(t_sector_hit_rate|t_bytes|t_sectors_pipe_lsu_mem_local)'
  [access]='^l1tex__(t_sectors_pipe_lsu_mem_global|t_requests|data_bank_conflicts|data_pipe_lsu_wavefronts_mem_shared)|op_shared_atom'
  [pipes]="^(sm__pipe_|sm__inst_executed_pipe|smsp__issue_active)"
  [thread]='^(sm|smsp)__thread_inst'
  [stalls]='stalled_'
  [tensor]='ops_path_tensor'
  [occ_idc]='^(sm__warps_active|sm__maximum_warps|idc__)'
)
for g in "${!G[@]}"; do mk $g "${G[$g]}"; done
TABLE=$R/table.txt
counter_pass_header > $TABLE
run() { counter_pass "$@"; }  # run PROGRAM-LABEL LIST ROUND -- program... (steps.sh)
ORDER="shipped lts_hit lts_bytes lts_tsect lts_dsect lts_tag lts_xbar lts_all dram l1comp l1_misc access pipes thread stalls tensor occ_idc"
for r in $(seq 1 ${ROUNDS:-2}); do
  for g in $ORDER; do run footprint $g $r -- $D/footprint 0; done
  ORDER=$(echo $ORDER | tr ' ' '\n' | tac | tr '\n' ' ')  # alternate the order
done
# The corpus: shipped against the groups named in CORPUS_GROUPS (default: all of L2's, stalls, tensor), alternating.
for r in 1 2; do
  for g in shipped ${CORPUS_GROUPS:-lts_all stalls tensor}; do run diag_corpus $g $r -- $D/diag_corpus 1 -tiny_launches; done
done
python3 - $TABLE <<'PY' | tee $R/summary-table.txt
import collections, statistics, sys
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:] if len(l.split()) >= 7]
by = collections.defaultdict(list)
for p, lst, r, w, passes, med, tot in rows: by[(p, lst)].append((int(passes), float(med)))
for p in ("footprint", "diag_corpus"):
    base = statistics.median(m for _, m in by.get((p, "shipped"), [(0, 0)]))
    print(f"{p}: shipped median {base:.0f} ms a kernel; each list less one group:")
    for (q, lst), v in sorted(by.items(), key=lambda kv: statistics.median(m for _, m in kv[1])):
        if q != p: continue
        med = statistics.median(m for _, m in v)
        print(f"  {lst:<10} passes {v[0][0]:>3}  replay {med:5.0f} ms  saves {base - med:+5.0f} ms  ({len(v)} runs)")
PY
(cd $R && tar czf $OUT/groups.tgz *.json table.txt summary-table.txt)
cp $TABLE $OUT/table.txt; cat $R/summary-table.txt >> $OUT/table.txt
cat $S; cat $R/summary-table.txt
