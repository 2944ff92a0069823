#!/usr/bin/env bash
# Device call of 2026-12-03 (third session): the sweep executors' H200 run (scripts/device/sweep.sh, issue 28), then
# the cost benchmark on the many-kernel program (`PROGRAMS=corpus SKIP_PEERS=1 ROUNDS=3 bench/cost.sh`, issue 27).
# Expects build/dist-sweep.tgz (kprof, kprof-kernels, libkprof_inject.so) and build/dist-cost.tgz (kprof,
# libkprof_inject.so, diag_corpus, streams_nvtx_graph), both from scripts/device/pack.sh. Never changes clocks.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
tar xzf build/dist-sweep.tgz -C build && tar xzf build/dist-cost.tgz -C build
timeout 240 bash scripts/device/sweep.sh > "$OUT/sweep.log" 2>&1; echo "sweep.sh rc=$?"
PROGRAMS=corpus SKIP_PEERS=1 ROUNDS=3 timeout 280 bash bench/cost.sh > "$OUT/cost.log" 2>&1; echo "cost.sh rc=$?"
tail -25 "$OUT/sweep.log"; echo; tail -30 "$OUT/cost.log"
