#!/usr/bin/env bash
# Device call (issue 23): what the first passes' copy and memset records (kFirstPassRecords) cost against event mode's
# set without them, in alternating rounds:
#   1. the 20 000 tiny launches of streams_nvtx_graph (launch_bound_ms inside the program, bench/RESULTS.md §2's
#      measure): untraced, event mode's set (no copies), the first pass's set (copies and memsets);
#   2. a program that copies (diag_holdout20: 16 host-to-device and 10 device-to-device copies, 17 memsets in its
#      ranges): the whole program's wall time, untraced and under the same two sets.
# ROUNDS=5. Never changes clocks. Results: $OUT/first-pass-copies.txt (one line per run) and the medians, printed last.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-first-pass; rm -rf $R; mkdir -p $R
S=$OUT/first-pass-copies-summary.txt; : > $S
T=$OUT/first-pass-copies.txt; : > $T
ROUNDS=${ROUNDS:-5}
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader)"
log "$(kprof --version)"
EVENT="KPROF_TRACE_API=1 KPROF_TRACE_COPIES=0 KPROF_TRACE_SYNC=0 KPROF_TRACE_NVTX=1"
FIRST="KPROF_TRACE_API=1 KPROF_TRACE_COPIES=1 KPROF_TRACE_SYNC=0 KPROF_TRACE_NVTX=1"
wall() {  # wall VARIANT [VAR=value ...]: diag_holdout20 once, whole-program seconds
  local v=$1 rc; shift; local t0=$(now)
  if [ "$v" = untraced ]; then $D/diag_holdout20 1 > /dev/null 2>&1
  else env CUDA_INJECTION64_PATH=$D/libkprof_inject.so NVTX_INJECTION64_PATH=/usr/local/cuda/lib64/libcupti.so \
         KPROF_TRACE_FILE=$R/h20.kptrace "$@" $D/diag_holdout20 1 > /dev/null 2>&1; fi
  rc=$?
  echo "program $v $(dt $t0 $(now)) rc=$rc" >> $T
}
for i in $(seq $ROUNDS); do
  $D/streams_nvtx_graph | grep launch_bound_ms | sed "s/^/launches untraced /" >> $T
  traced $EVENT | sed "s/^/launches event_set /" >> $T
  traced $FIRST | sed "s/^/launches first_pass_set /" >> $T
  wall untraced
  wall event_set $EVENT
  wall first_pass_set $FIRST
done
python3 - "$T" <<'PY' | tee -a $S
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "launches":
        m = re.search(r"launch_bound_ms[=: ]+([0-9.]+)", line)
        if m: rows.setdefault(("launches", f[1]), []).append(float(m.group(1)))
    elif f[0] == "program":
        rows.setdefault(("program", f[1]), []).append(float(f[2]))
for what, unit in (("launches", "ms (20 000 launches)"), ("program", "s (diag_holdout20 1, whole program)")):
    base = statistics.median(rows.get((what, "untraced"), [float("nan")]))
    print(f"{what}: median {unit}")
    for v in ("untraced", "event_set", "first_pass_set"):
        xs = rows.get((what, v), [])
        if xs:
            med = statistics.median(xs)
            print(f"  {v:15} {med:9.3f}  x{med / base:.3f} of untraced  ({', '.join(f'{x:.3f}' for x in xs)})")
PY
