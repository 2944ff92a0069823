#!/usr/bin/env bash
# Device call (issue 27): the cost benchmark on the PyTorch + Triton program alone (`PROGRAMS=torch SKIP_PEERS=1
# ROUNDS=1 bench/cost.sh`, `ncu --set full` given up to 330 s), after the counter-image cut. Expects
# build/dist-cost.tgz (kprof, libkprof_inject.so, diag_corpus, streams_nvtx_graph) from scripts/device/pack.sh.
# Never changes clocks. Results: $OUT/cost.tgz, $OUT/cost-summary.txt, $OUT/cost.log.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
tar xzf build/dist-cost.tgz -C build
PROGRAMS=torch SKIP_PEERS=1 ROUNDS=1 STEP_TIMEOUT=330 timeout 560 bash bench/cost.sh > "$OUT/cost.log" 2>&1
echo "cost.sh rc=$?"; tail -25 "$OUT/cost.log"
