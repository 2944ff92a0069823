#!/usr/bin/env bash
# Device call (issue 27): where the counter run's time goes outside the replay. diag_corpus run directly under
# libkprof_inject.so in counter mode (the environment `kprof run` sets), each line of its output stamped on arrival:
# start -> first line (CUDA and collector start-up, counter set-up), first -> last line (the kernels), last line
# -> process end (exit: the collector's last write, CUPTI's teardown). Variants: plain; injected with no kernel
# selected; one kernel profiled with one metric; every kernel with one metric; every kernel with the shipped list;
# with CUDA_MODULE_LOADING=EAGER. The counter file's phases per profiled launch (medians and sums).
# Never changes clocks. Results: summary.txt (table last).
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
S=$OUT/summary.txt; : > $S; R=$OUT
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader)"
# What `kprof run` asks the collector for: the list less Nsight Compute's launch__* and SASS-patching metrics.
LIST=$(grep -v '^#' data/ncu-annotation-metrics.txt | grep . | grep -v -E '^(launch__|smsp__sass_)' | paste -sd, -)
stamp() {  # stamp LABEL [VAR=value ...]: one run of diag_corpus, its phases
  local label=$1; shift; local f=/tmp/kprof-cp-$label.json; rm -f $f
  local t0=$EPOCHREALTIME first="" last=""
  while IFS= read -r line; do [ -z "$first" ] && first=$EPOCHREALTIME; last=$EPOCHREALTIME; done < <(
    env "$@" KPROF_COUNTERS_FILE=$f stdbuf -oL $D/diag_corpus 1 -tiny_launches 2>/dev/null)
  local t1=$EPOCHREALTIME
  [ -n "$first" ] || { first=$t1; last=$t1; }  # no output: the whole run counts as start-up
  local extra=$( [ -f $f ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); ks=d.get('kernels',[]); import statistics as st; ph={}; [ph.setdefault(p,[]).append(v) for k in ks for p,v in k.get('phases_ms',{}).items()]; print('setup %.0f ms, %d profiled, replay %.0f ms, passes %s; phase medians (sums) ms: %s' % (d.get('setup_ms',0), len(ks), sum(k.get('replay_wall_ms',0) for k in ks), d.get('passes'), ' '.join('%s %.1f (%.0f)' % (p, st.median(v), sum(v)) for p,v in ph.items())))" $f)
  log "$(awk -v a=$t0 -v b=$first -v c=$last -v d=$t1 -v l=$label 'BEGIN{printf "%-14s start->first %6.0f ms  kernels %6.0f ms  last->end %6.0f ms  total %6.0f ms", l, (b-a)*1000, (c-b)*1000, (d-c)*1000, (d-a)*1000}')  ${extra}"
}
INJ="CUDA_INJECTION64_PATH=$D/libkprof_inject.so"  # one word: $D has no spaces (steps.sh)
for round in 1 2; do
  stamp plain KPROF_NONE=1
  stamp inject_none $INJ KPROF_COUNTERS_METRICS=sm__cycles_elapsed.avg 'KPROF_COUNTERS_KERNEL=^no_such_kernel$'
  stamp inject_one $INJ KPROF_COUNTERS_METRICS=sm__cycles_elapsed.avg 'KPROF_COUNTERS_KERNEL=^roof_fp32_fma$'
  stamp all_1metric $INJ KPROF_COUNTERS_METRICS=sm__cycles_elapsed.avg
  stamp all_list $INJ KPROF_COUNTERS_METRICS=$LIST
  stamp all_1m_eager $INJ KPROF_COUNTERS_METRICS=sm__cycles_elapsed.avg CUDA_MODULE_LOADING=EAGER
  stamp plain_eager CUDA_MODULE_LOADING=EAGER
done
cat $S
