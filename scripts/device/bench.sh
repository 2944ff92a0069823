#!/usr/bin/env bash
# Device call: bench/bench_all over bench/sweeps.toml (every version of every package, rank-test verdicts).
# Never changes clocks. Expects build/dist from scripts/device/pack.sh. Results: $OUT/bench/ (bench.md, bench.json,
# runs/*/ with timings, tiling and logs), $OUT/bench.log (progress), GPU state before/after. The table is also
# printed. Extra arguments go to bench_all (e.g. --packages mla --runs 20).
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
[ -x build/dist/kprof ] && export KPROF_BIN=$ROOT/build/dist/kprof
query=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_event_reasons.active
nvidia-smi --query-gpu=$query --format=csv > "$OUT/gpu-before.csv" 2>&1
timeout 560 bench/bench_all --out "$OUT/bench" "$@" 2> "$OUT/bench.log"
rc=$?
echo "bench_all rc=$rc" | tee -a "$OUT/bench.log"
nvidia-smi --query-gpu=$query --format=csv > "$OUT/gpu-after.csv" 2>&1
exit $rc
