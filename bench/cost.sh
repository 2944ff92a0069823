#!/usr/bin/env bash
# Cost benchmark (bench/RESULTS.md §1 and §2): on the GPU machine, in one call,
#   1. three programs (multi-stream CUDA C++ with a graph, many-kernel CUDA C++, PyTorch + Triton with repeated
#      kernel names) plain, under `ncu --set full`, and under each kprof mode; wall time of every command;
#   2. tracer overhead on 20k tiny CUDA launches (streams_nvtx_graph's launch-bound phase, timed inside the
#      program): untraced, CUPTI's floor (kernel records enabled, never read), and kprof's record sets;
#   3. tracer overhead on a launch-bound PyTorch loop (bench/python/tiny_ops.py): torch.profiler and Triton Proton
#      in the process, kprof's event and nsys record sets injected.
# Alternating rounds; medians. Never changes clocks. Expects build/dist (scripts/device/pack.sh).
# Results: $OUT/cost.tgz, $OUT/cost-summary.txt; the tables are printed last.
#   ROUNDS=5 (tracer rounds)  PROGRAMS="streams corpus torch"  SKIP_PEERS=1 (no PyTorch loop)
set -u
. "$(dirname "$0")/../scripts/device/steps.sh"; cd "$ROOT"
R=/tmp/kprof-cost; rm -rf $R; mkdir -p $R
S=$R/summary.txt; : > $S
ROUNDS=${ROUNDS:-5}
STEP_TIMEOUT=${STEP_TIMEOUT:-300}
W=$R/walls.txt; : > $W  # program variant seconds rc
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a $S
kprof --version | tee -a $S

cmd_of() {
  case $1 in
    streams) echo "$D/streams_nvtx_graph 200" ;;  # 2000 tiny launches kept ncu --set full past 300 s
    corpus) echo "$D/diag_corpus 1 -tiny_launches" ;;
    torch) echo "python3 bench/python/cost_torch.py 3" ;;
  esac
}
timed() {  # timed PROGRAM VARIANT cmd...: wall seconds of the whole command into $W
  local p=$1 v=$2; shift 2; local t0=$(now)
  ${STEP_TIMEOUT:+timeout $STEP_TIMEOUT} "$@" > $R/$p-$v.out 2> $R/$p-$v.err; local rc=$?
  echo "$p $v $(dt $t0 $(now)) $rc" | tee -a $W
}

# 1. programs
for p in ${PROGRAMS:-streams corpus torch}; do
  C=$(cmd_of $p); O=$R/profiles/$p
  for i in 1 2 3; do timed $p plain $C; done
  timed $p ncu_full ncu --clock-control none --set full -f -o $R/full-$p $C
  for i in 1 2; do timed $p annotation kprof run --prof-type=annotation -q --kernel $p --out $O/annotation-$i -- $C; done
  timed $p annotation_ncu kprof run --prof-type=annotation --counters ncu -q --kernel $p --out $O/annotation-ncu -- $C
  timed $p annotation_one_run kprof run --prof-type=annotation --timing counters -q --kernel $p --out $O/annotation-one -- $C
  timed $p event kprof run --prof-type=event -q --kernel $p --out $O/event -- $C
  timed $p nsys kprof run --prof-type=nsys -q --kernel $p --out $O/nsys -- $C
  rm -f $R/full-$p.ncu-rep
done

# 2. tracer overhead, CUDA C++ (launch_bound_ms inside the program)
T=$R/tracer.txt; : > $T
for i in $(seq $ROUNDS); do
  $D/streams_nvtx_graph | grep launch_bound_ms | sed "s/^/untraced /" >> $T
  traced KPROF_TRACE_DISCARD=1 KPROF_TRACE_API=0 KPROF_TRACE_COPIES=0 KPROF_TRACE_SYNC=0 KPROF_TRACE_NVTX=0 | sed "s/^/cupti_floor_kernels /" >> $T
  traced KPROF_TRACE_API=0 KPROF_TRACE_COPIES=0 KPROF_TRACE_SYNC=0 KPROF_TRACE_NVTX=0 | sed "s/^/kprof_kernels_only /" >> $T
  traced KPROF_TRACE_DISCARD=1 KPROF_TRACE_COPIES=0 KPROF_TRACE_SYNC=0 | sed "s/^/cupti_floor_event_set /" >> $T
  traced KPROF_TRACE_COPIES=0 KPROF_TRACE_SYNC=0 | sed "s/^/kprof_event_set /" >> $T
  traced KPROF_TRACE_DISCARD=1 | sed "s/^/cupti_floor_nsys_set /" >> $T
  traced | sed "s/^/kprof_nsys_set /" >> $T
done

# 3. PyTorch loop: peers in one process, kprof's tracer injected into the plain loop
P=$R/torch_loop.txt; : > $P
if [ -z "${SKIP_PEERS:-}" ]; then
  INJ="env CUDA_INJECTION64_PATH=$D/libkprof_inject.so NVTX_INJECTION64_PATH=/usr/local/cuda/lib64/libcupti.so KPROF_TRACE_FILE=/tmp/kprof-loop.kptrace KPROF_TRACE_DRIVER=1"
  for i in 1 2; do
    python3 bench/python/tiny_ops.py peers $ROUNDS >> $P 2>> $R/peers.err
    python3 bench/python/tiny_ops.py loops $ROUNDS | sed "s/^plain/untraced/" >> $P 2>> $R/peers.err
    $INJ KPROF_TRACE_COPIES=0 KPROF_TRACE_SYNC=0 python3 bench/python/tiny_ops.py loops $ROUNDS | sed "s/^plain/kprof_event_set/" >> $P 2>> $R/peers.err
    $INJ python3 bench/python/tiny_ops.py loops $ROUNDS | sed "s/^plain/kprof_nsys_set/" >> $P 2>> $R/peers.err
    $INJ KPROF_TRACE_DISCARD=1 KPROF_TRACE_API=0 KPROF_TRACE_DRIVER=0 KPROF_TRACE_COPIES=0 KPROF_TRACE_SYNC=0 KPROF_TRACE_NVTX=0 python3 bench/python/tiny_ops.py loops $ROUNDS | sed "s/^plain/cupti_floor_kernels/" >> $P 2>> $R/peers.err
  done
fi

python3 - $W $T $P <<'EOF' | tee -a $S
import sys, statistics as st, collections
walls = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p, v, s, rc = line.split()
    walls[(p, v)].append((float(s), int(rc)))
print("\n## Cost against ncu --set full (wall s; overhead = (kprof - plain) / (ncu full - plain))")
print("| program | variant | wall s (median) | rc | wall / ncu full | overhead / ncu full's |")
print("| --- | --- | ---: | --- | ---: | ---: |")
for p in dict.fromkeys(k[0] for k in walls):
    plain = st.median(s for s, _ in walls[(p, "plain")])
    full = st.median(s for s, _ in walls[(p, "ncu_full")]) if walls.get((p, "ncu_full")) else None
    for (pp, v), runs in walls.items():
        if pp != p: continue
        w = st.median(s for s, _ in runs); rcs = ",".join(str(r) for _, r in runs)
        ratio = f"{w / full:.3f}" if full else "-"
        ovh = f"{(w - plain) / (full - plain):.3f}" if full and v not in ("plain", "ncu_full") else "-"
        print(f"| {p} | {v} | {w:.2f} | {rcs} | {ratio} | {ovh} |")
def table(path, title, key):
    vals = collections.defaultdict(list)
    for line in open(path):
        parts = line.split()
        if len(parts) < 2 or "=" not in parts[-1]: continue
        vals[parts[0]].append(float(parts[-1].split("=")[1]))
    if not vals: return
    base = st.median(vals.get(key, [float("nan")]))
    print(f"\n## {title}")
    print("| variant | runs | median ms | ratio to untraced | runs (ms) |")
    print("| --- | ---: | ---: | ---: | --- |")
    for v, xs in vals.items():
        print(f"| {v} | {len(xs)} | {st.median(xs):.1f} | {st.median(xs) / base:.3f} | {' '.join(f'{x:.1f}' for x in xs)} |")
table(sys.argv[2], "Tracer overhead, 20k tiny CUDA launches (launch_bound_ms inside the program)", "untraced")
table(sys.argv[3], "Tracer overhead, PyTorch loop of 20k tiny ops (loop_ms inside the process)", "plain")
EOF
tar czf $OUT/cost.tgz -C $R --exclude='*.ncu-rep' . && cp $S $OUT/cost-summary.txt
