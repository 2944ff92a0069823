#!/usr/bin/env bash
# Device call, after scripts/device/mla.sh in the same command: the v4 devlog entry and the MLA bench.
#   1. `kprof devlog` for mla.sh's v4 annotation artifact into docs/kernels/mla.md ("vs Previous" against the
#      entry before it); the updated file comes back as $OUT/mla.md
#   2. bench/bench_mla --versions v3,v4 over bench/sweeps.toml's points (mla.sh's autotune cache), time-limited
#   3. the in-process counter run on the stream-capture program (annotation --timing counters on
#      streams_nvtx_graph 200), the case that broke cudaStreamEndCapture before the range profiler was disabled
#      around captures
# Never changes clocks. Results: $OUT/mla.md, $OUT/mla-devlog.tgz, $OUT/mla-devlog-summary.txt.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
M=/tmp/kprof-mla
R=/tmp/kprof-mla-devlog; rm -rf $R; mkdir -p $R
S=$R/summary.txt; : > $S
STEP_TIMEOUT=${STEP_TIMEOUT:-150}
step devlog_v4 kprof devlog --docs docs/kernels $M/profiles/mla_v4_annotation
cp docs/kernels/mla.md $OUT/mla.md
step bench_mla bench/bench_mla --versions v3,v4 --cache-dir $M/cache --out $R/bench
step streams_one_run kprof run --prof-type=annotation --timing counters --kernel streams --out $R/streams-one -- \
  $D/streams_nvtx_graph 200
grep -E "captur|error" $R/streams_one_run.err | head -5 | tee -a $S
tail -30 $R/bench_mla.out | tee -a $S
tar czf $OUT/mla-devlog.tgz -C $R . && cp $S $OUT/mla-devlog-summary.txt
