#!/usr/bin/env bash
# Device call: MLA decode v4 (cuBLASLt GEMM pipeline) against v3 on the H200.
#   1. mla_check (float64 reference, every v4 tile config) at the default small size, at the typical size
#      b=32 s=16 t=4096, and at edge shapes (long rows: the softmax's two-pass path; partial tiles; d=256 p=32);
#      v4bf (bf16 scores, an experiment) next to v4, also with wider logits (--qrange 9).
#   2. kprof mla v3 / v4 at b=32 s=16 t=4096: annotation (ncu per stage) and event (CUPTI trace).
#   3. A summary table last: plan time (event run, CUDA events, L2 flushed), TFLOP/s, % of the 796 TFLOP/s bf16 peak.
# Never changes clocks.  Expects build/dist (scripts/device/pack.sh) with kprof, kprof-kernels, mla_check and
# libkprof_inject.so; cuBLASLt comes from the CUDA install (/usr/local/cuda/lib64, found through the RPATH).
# Results: $OUT/mla.tgz (logs, profiles) and $OUT/mla-summary.txt.  About 2 minutes of GPU time.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-mla; rm -rf $R; mkdir -p $R
S=$R/summary.txt; : > $S
STEP_TIMEOUT=240  # every step has a time limit, so that a hang cannot use up the call
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a $S
O=$R/profiles; C=$R/cache; MLA="--b=32 --s=16 --t=4096"

# 1. correctness (and mla_check's own timing: CUDA events, no L2 flush, median of 10)
step check_small       $D/mla_check --versions v4,v4bf
step check_typical     $D/mla_check --typical --versions v3,v4,v4bf
step check_long_rows   $D/mla_check --b 2 --s 1 --t 20000 --versions v4
step check_edges       $D/mla_check --b 3 --s 3 --h 100 --t 1000 --versions v4
step check_tiny_t      $D/mla_check --b 3 --s 3 --h 100 --t 1 --versions v4
step check_d256        $D/mla_check --d 256 --p 32 --versions v4
step check_qrange9     $D/mla_check --qrange 9 --versions v4,v4bf

# 2. profiles (the first v4 run tunes: its choices are in $C and in each run's tiling/)
step mla_v3_annotation kprof mla v3 $MLA --prof-type=annotation --cache-dir $C --out $O/mla_v3_annotation
step mla_v3_event      kprof mla v3 $MLA --prof-type=event --cache-dir $C --out $O/mla_v3_event
step mla_v4_annotation kprof mla v4 $MLA --prof-type=annotation --cache-dir $C --out $O/mla_v4_annotation
step mla_v4_event      kprof mla v4 $MLA --prof-type=event --cache-dir $C --out $O/mla_v4_event

# 3. summary: every checked line, then the table
{
  echo; echo "== mla_check lines (ver config rel_err nonfinite result median_ms TFLOP/s GB/s notes) =="
  for f in check_small check_typical check_long_rows check_edges check_tiny_t check_d256 check_qrange9; do
    echo "-- $f"; grep -E "^(v3|v4|v4bf) |^summary|setup failed" $R/$f.out $R/$f.err 2>/dev/null | sed 's/^[^:]*://'
  done
  echo; echo "== v4 tuning (kprof-kernels: chosen config per stage) =="
  for st in mla_scores mla_softmax mla_output; do
    f=$O/mla_v4_event/tiling/$st.json
    [ -f $f ] && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['stage'], j['label'], j.get('median_ms','-'), 'ms', j['source'])" $f
  done
  echo; echo "== summary: b=32 s=16 t=4096 h=128 d=512 p=64 (event runs: plan GPU median, CUDA events, L2 flushed) =="
  python3 - $O <<'EOF'
import json, os, sys
o = sys.argv[1]
print(f"{'version':8} {'time ms':>9} {'TFLOP/s':>9} {'% of 796':>9}  stages (median ms)")
for v in ("v3", "v4"):
    f = os.path.join(o, f"mla_{v}_event", "timings.json")
    try:
        t = json.load(open(f))
    except Exception as e:
        print(f"{v:8} {'-':>9} {'-':>9} {'-':>9}  no timings ({e})")
        continue
    p = t["params"]
    flops = p["b"] * p["s"] * p["h"] * 2.0 * p["t"] * (2 * p["d"] + p["p"])
    ms = t["plan"]["gpu_ms"]["median"]
    tf = flops / (ms * 1e-3) / 1e12
    stages = ", ".join(f"{s['name']} {s['gpu_ms']['median']:.4f}" for s in t["stages"])
    print(f"{v:8} {ms:9.4f} {tf:9.1f} {100 * tf / 796:8.1f}%  {stages}")
EOF
} 2>&1 | tee -a $S

find $O -name '*.ncu-rep' -size +12M -delete
tar czf $OUT/mla.tgz -C $R . && cp $S $OUT/mla-summary.txt
