#!/usr/bin/env bash
# Device call (issue 27): where annotation mode's time goes on three kinds of program — the bundled probe program
# (23 kernels), the multi-stream program with a graph, a PyTorch script — from kprof's own "time:" line, against
# the plain run, each twice. Clocks left as found. Results: summary.txt and one archive.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=$OUT; S=$OUT/summary.txt; : > $S
log "$(nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader)"
progs=("probe|$D/probe_kernels 1" "streams|$D/streams_nvtx_graph 2000" "torch|python3 examples/programs/diag_torch.py")
for p in "${progs[@]}"; do
  name=${p%%|*}; cmd=${p#*|}
  for i in 1 2; do
    t0=$(now); $cmd > /dev/null 2>&1; log "$(printf '%-8s plain      %6s s' $name $(dt $t0 $(now)))"
    t0=$(now); $D/kprof run --prof-type=annotation --kernel $name --out-root $OUT/out -- $cmd > $R/$name-$i.out 2> $R/$name-$i.err
    rc=$?; log "$(printf '%-8s annotation %6s s rc=%s  %s' $name $(dt $t0 $(now)) $rc "$(grep -o 'time: .*' $R/$name-$i.err | tail -1)")"
  done
done
log "done"
rm -rf $OUT/out
cp $S /tmp/summary.txt
(cd $OUT && tar czf /tmp/results.tgz .) && find $OUT -mindepth 1 -delete && mv /tmp/results.tgz /tmp/summary.txt $OUT/
