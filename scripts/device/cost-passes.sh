#!/usr/bin/env bash
# Device call (issues 27 and 23): what one replay pass costs, and the shared-atomic counters through CUPTI.
#   1. Each program (the probe's 23 kernels, the multi-stream program with a graph, a PyTorch script) in annotation
#      mode with the shipped metric list and with a lean one (no stall reasons, no tensor ops by precision: fewer
#      passes): kprof's time line, the counter file's passes, setup_ms by step, and the kernels' summed replay
#      wall time. The slope (replay time per kernel per pass) says what each pass the list saves is worth.
#   2. Held-out set 9's program in annotation mode with CUPTI counters and with ncu counters: the shared-atomic
#      kernel's cause (shared wavefronts per ATOMS instruction, new in the list).
# Never changes clocks (ncu: --clock-control none, kprof's default). Results: summary.txt and one archive.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=$OUT; S=$OUT/summary.txt; : > $S
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader)"
LEAN=/tmp/kprof-lean-data; rm -rf $LEAN; cp -r data $LEAN
grep -v -E 'stalled_|ops_path_tensor' data/ncu-annotation-metrics.txt > $LEAN/ncu-annotation-metrics.txt
counters_facts() {  # the counter file of the newest artifact under $1
  local f; f=$(find "$1" -name counters.json -printf '%T@ %p\n' | sort -n | tail -1 | cut -d' ' -f2)
  [ -n "$f" ] || { echo "no counters.json"; return; }
  python3 - "$f" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ks = d.get("kernels", [])
rep = sum(k.get("replay_wall_ms", 0) for k in ks)
steps = " ".join("%s=%.0f" % (k, v) for k, v in d.get("setup_steps_ms", {}).items())
print("passes=%s kernels=%d replay_sum=%.0fms per_kernel_pass=%.1fms setup=%.0fms [%s]" % (
    d.get("passes"), len(ks), rep, rep / max(1, len(ks)) / max(1, d.get("passes") or 1), d.get("setup_ms", 0), steps))
PY
}
progs=("probe|$D/probe_kernels 1" "streams|$D/streams_nvtx_graph 2000" "torch|python3 examples/programs/diag_torch.py")
for p in "${progs[@]}"; do
  name=${p%%|*}; cmd=${p#*|}
  t0=$(now); $cmd > /dev/null 2>&1; log "$(printf '%-8s plain           %6s s' $name $(dt $t0 $(now)))"
  for list in shipped lean; do
    dd=$ROOT/data; [ $list = lean ] && dd=$LEAN
    o=$OUT/out-$name-$list
    t0=$(now); KPROF_DATA_DIR=$dd timeout 240 $D/kprof run --prof-type=annotation --kernel $name --out-root $o -- $cmd \
      > $R/$name-$list.out 2> $R/$name-$list.err
    rc=$?; log "$(printf '%-8s annotation %-7s %6s s rc=%s  %s' $name $list $(dt $t0 $(now)) $rc "$(grep -o 'time: .*' $R/$name-$list.err | tail -1)")"
    log "         $(counters_facts $o)"
  done
done
# 2. shared atomics (set 9) through both counter sources
for src in cupti ncu; do
  o=$OUT/out-h9-$src
  t0=$(now); timeout 300 $D/kprof run --prof-type=annotation --counters $src --kernel diag_holdout9 --out-root $o -- $D/diag_holdout9 \
    > $R/h9-$src.out 2> $R/h9-$src.err
  rc=$?; log "$(printf 'holdout9 annotation --counters %-5s %6s s rc=%s' $src $(dt $t0 $(now)) $rc)"
  rep=$(find $o -name report.md | head -1)
  [ -n "$rep" ] && grep -i -E 'shared_atomics_hot|bincount' "$rep" | head -3 | cut -c1-300 | tee -a $S
  cf=$(find $o -name counters.json | head -1)
  [ -n "$cf" ] && python3 - "$cf" <<'PY' | tee -a $S
import json, sys
for k in json.load(open(sys.argv[1])).get("kernels", []):
    if "shared_atomics" in k["mangled"]:
        v = k["values"]
        print("  cupti values:", {m: v.get(m) for m in ("smsp__inst_executed_op_shared_atom.sum",
              "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
              "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "l1tex__throughput.avg.pct_of_peak_sustained_active")})
PY
done
log "done"
find $OUT -name '*.kptrace' -size +2M -delete
cp $S /tmp/summary.txt
(cd $OUT && tar czf /tmp/results.tgz .) && find $OUT -mindepth 1 -delete && mv /tmp/results.tgz /tmp/summary.txt $OUT/
