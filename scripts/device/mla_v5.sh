#!/usr/bin/env bash
# Device call for MLA v5 (the fused sm_90a kernel), from a tarball made here by scripts/pack-mla-v5.sh: kprof,
# kprof-kernels, mla_check, libkprof_inject.so, libkprof_c.so, this script and steps.sh in build/dist-mla.
#
#   tar xzf build/dist-mla.tgz -C build && STEPS="checks typical v5_event v5_annotation bench" bash build/dist-mla/mla_v5.sh
#
#   checks          mla_check --versions v5 (every tile config) at the quick size and the edge shapes: partial row
#                   tiles (h=100), partial kv tiles (t=1000, 100, 65), t=1, long t (20000), small grids that split
#                   the kv (b=32 s=1 t=16384; b=1 s=1 t=300), and (d, p) = (256, 32), which v5 must refuse with
#                   std::invalid_argument.  Stops the call if the quick size fails or hangs.
#   typical         mla_check --typical --versions v4,v5 (float64 reference, CUDA-event medians)
#   v4_annotation   kprof mla v4 annotation at b=32 s=16 t=4096 (the advice before the step)
#   v5_event        kprof mla v5 event (autotunes the tile space; the plan time after the step)
#   v5_annotation   kprof mla v5 annotation (the advice for the next step)
#   bench           bench_mla --versions v4,v5 over bench/sweeps.toml
#   sanitizer       compute-sanitizer racecheck, memcheck, synccheck on small v5 shapes
#   sass            cuobjdump of the v5 kernels: HGMMA / WARPGROUP.DEPBAR / WARPGROUP.ARRIVE counts per kernel
# Runs in the repository root (data/ and bench/ come from there; steps.sh's ROOT is two folders above the script).
# Never changes clocks (kprof runs ncu with --clock-control none by default).
# Results: $OUT/mla5.tgz (logs, profiles without large ncu reports) and $OUT/mla5-summary.txt.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
D=$(cd "$(dirname "$0")" && pwd)  # the binaries are in the tarball's folder, not build/dist
export PATH=$D:$PATH:/usr/local/cuda/bin KPROF_BIN=$D/kprof
STEPS=${STEPS:-checks typical v4_annotation v5_event v5_annotation}
R=/tmp/kprof-mla5; rm -rf $R; mkdir -p $R
S=$OUT/mla5-summary.txt; : > $S   # straight under $OUT: it comes back even if the call is cut short
O=$R/profiles; C=$R/cache; MLA="--b=32 --s=16 --t=4096"
# The results so far into $OUT after every step, so that a call cut short still brings back what ran.
pack() {
  find $R -name '*.ncu-rep' -size +8M -delete 2>/dev/null
  cp $S $R/ && tar czf $OUT/mla5.tgz.tmp -C $R . && mv $OUT/mla5.tgz.tmp $OUT/mla5.tgz
}
# steps.sh's step under a time limit of its own, then pack.
timed() {
  local limit=$1; shift
  STEP_TIMEOUT=$limit step "$@"
  pack
}
has() { [[ " $STEPS " == *" $1 "* ]]; }
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.draw --format=csv,noheader)"
CHECKS=()
if has checks; then
  timed 60 check_small $D/mla_check --versions v5
  if grep -q "^summary: .*-> OK" $R/check_small.out; then
    CHECKS+=(check_small)
    for spec in "edges_h100_t1000:--b 3 --s 3 --h 100 --t 1000" "edges_h100_t100:--b 3 --s 3 --h 100 --t 100" \
                "t65:--b 2 --s 4 --t 65" "t1:--t 1" "long_t20000:--b 2 --s 1 --t 20000" \
                "qrange9:--qrange 9" "s1_t16384:--b 32 --s 1 --t 16384" "b1_t300:--b 1 --s 1 --t 300" \
                "d256_refused:--d 256 --p 32"; do
      name=${spec%%:*}; args=${spec#*:}
      timed 60 $name $D/mla_check --versions v5 $args; CHECKS+=($name)
    done
  else
    CHECKS+=(check_small); log "check_small failed or hung: the remaining v5 steps are skipped"; STEPS=""
  fi
fi
has typical && { timed 150 typical $D/mla_check --typical --versions v4,v5; CHECKS+=(typical); }
has v5_event && timed 120 v5_event kprof mla v5 $MLA --prof-type=event --cache-dir $C --out $O/mla_v5_event
has v4_annotation && timed 110 v4_annotation kprof mla v4 $MLA --prof-type=annotation \
  --cache-dir $C --out $O/mla_v4_annotation
has v5_annotation && timed 90 v5_annotation kprof mla v5 $MLA --prof-type=annotation \
  --cache-dir $C --out $O/mla_v5_annotation
if has sass; then  # per v5 kernel: HGMMA and warpgroup barrier/wait counts (serialisation shows as extra waits)
  cuobjdump -sass $D/mla_check > $R/mla_check.sass 2> $R/sass.err
  awk '/Function : .*mla_v5/{f=$3} f && /HGMMA/{g[f]++} f && /WARPGROUP.DEPBAR/{d[f]++} f && /WARPGROUP.ARRIVE/{a[f]++}
       END{for (k in g) printf "%s HGMMA=%d DEPBAR=%d ARRIVE=%d\n", k, g[k], d[k], a[k]}' $R/mla_check.sass \
    | sed 's/_ZN3mla.*mla_v5_kernelI//' > $R/sass_counts.txt
  awk '/Function : .*mla_v5/{p=0} /Function : .*mla_v5_kernelILi64ELi2ELi1ELi1/{p=1} p' $R/mla_check.sass > $R/v5_64_2_1_1.sass
  gzip -f $R/mla_check.sass
fi

has bench && timed 130 bench $D/kprof bench --packages mla --versions v4,v5 --cache-dir $C --out $R/bench
if has sanitizer; then
  timed 45 racecheck compute-sanitizer --tool racecheck $D/mla_check --versions v5 --b 1 --s 1 --t 300 --reps 1 --warmup 0
  timed 45 memcheck compute-sanitizer --tool memcheck $D/mla_check --versions v5 --b 2 --s 3 --h 100 --t 100 --reps 1 \
    --warmup 0
  timed 45 synccheck compute-sanitizer --tool synccheck $D/mla_check --versions v5 --b 1 --s 1 --t 300 --reps 1 --warmup 0
fi
{
  echo; echo "== mla_check (ver config rel_err nonfinite result median_ms TFLOP/s GB/s notes) =="
  for f in "${CHECKS[@]}"; do
    echo "-- $f: $(grep -m1 '^shape' $R/$f.out 2>/dev/null)"
    grep -E "^(v4|v5) |^summary|setup failed|error" $R/$f.out $R/$f.err 2>/dev/null | sed 's/^[^:]*://' | cut -c1-150
  done
  for a in mla_v4_annotation mla_v5_annotation; do
    [ -d $O/$a ] || continue
    echo; echo "== $a: top opportunities =="
    grep -rh -m3 -E "est\. [0-9.]+% gain|Insight|Bottleneck" $O/$a/*.md 2>/dev/null | head -8 | cut -c1-300
  done
  [ -f $R/sass_counts.txt ] && { echo; echo "== v5 SASS (per kernel) =="; cat $R/sass_counts.txt; }
  for f in racecheck memcheck synccheck; do
    [ -f $R/$f.out ] && { echo "-- $f:"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|hazard|error" $R/$f.out $R/$f.err | head -4; }
  done
  echo; echo "== v5 tuning =="
  for f in $O/mla_v5_event/tiling/*.json; do
    [ -f $f ] && python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['stage'], j['label'], j.get('median_ms','-'), 'ms', j['source'])" $f
  done
  echo; echo "== summary: b=32 s=16 t=4096 (event: plan GPU median, CUDA events, L2 flushed) =="
  python3 - $O <<'EOF'
import json, os, sys
o = sys.argv[1]
for v in ("v5",):
    f = os.path.join(o, f"mla_{v}_event", "timings.json")
    try:
        t = json.load(open(f))
    except Exception as e:
        print(f"{v}: no timings ({e})"); continue
    p = t["params"]
    flops = p["b"] * p["s"] * p["h"] * 2.0 * p["t"] * (2 * p["d"] + p["p"])
    ms = t["plan"]["gpu_ms"]["median"]
    tf = flops / (ms * 1e-3) / 1e12
    print(f"{v} event: {ms:.4f} ms  {tf:.1f} TFLOP/s  {100 * tf / 796:.1f}% of 796")
EOF
  has bench && tail -25 $R/bench.out
} 2>&1 | tee -a $S
pack
