#!/usr/bin/env bash
# Device call: the bundled kernel packages. mla_check (all MLA versions against the float64 reference), then
# `kprof <package> <version>` in every mode that matters, with devlog entries; plus the Python NVTX re-check.
# Never changes clocks. Expects build/dist from scripts/device/pack.sh. Results: $OUT/packages.tgz + summary.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-packages; rm -rf $R; mkdir -p $R
S=$R/summary.txt; : > $S
STEP_TIMEOUT=240  # one package run never holds the call
O=$R/profiles; DOCS=$R/docs-kernels; C=$R/cache
step mla_check_small   $D/mla_check
step mla_check_typical $D/mla_check --typical
MLA="--b=32 --s=16 --t=4096"
for v in v1 v2 v3; do
  step mla_${v}_annotation kprof mla $v $MLA --prof-type=annotation --cache-dir $C --out $O/mla_${v}_annotation --devlog --docs $DOCS
  step mla_${v}_event      kprof mla $v $MLA --prof-type=event --cache-dir $C --out $O/mla_${v}_event
done
for v in v1 v2 v3; do
  step mla_${v}_nsys kprof mla $v $MLA --prof-type=nsys --cache-dir $C --out $O/mla_${v}_nsys
  step mla_${v}_ncu  kprof mla $v $MLA --prof-type=ncu --bench-runs 1 --cache-dir $C --out $O/mla_${v}_ncu
done
G="--m=4096 --n=4096 --k=4096"
for v in v1 v2 v3; do
  step gemm_${v}_annotation kprof gemm $v $G --prof-type=annotation --cache-dir $C --out $O/gemm_${v}_annotation --devlog --docs $DOCS
done
step gemm_bias_relu_annotation kprof gemm_bias_relu v1 $G --prof-type=annotation --cache-dir $C --out $O/gemm_bias_relu_annotation
step overlap_v1_nsys kprof overlap v1 --prof-type=nsys --cache-dir $C --out $O/overlap_v1_nsys
step overlap_v2_nsys kprof overlap v2 --prof-type=nsys --cache-dir $C --out $O/overlap_v2_nsys
step nsys_triton   kprof run --prof-type=nsys --out $O/nsys_triton -- python3 examples/programs/triton_softmax.py
grep -h "NVTX ranges\|Records:" $O/nsys_triton/timeline.md | tee -a $S
grep -h "overlap, ≥ 2\|kernel–kernel" $O/overlap_v1_nsys/timeline.md $O/overlap_v2_nsys/timeline.md | tee -a $S
tail -12 $R/mla_check_typical.out | tee -a $S
find $O -name '*.ncu-rep' -size +12M -delete
find $O -name 'trace.kptrace' -size +4M -delete
tar czf $OUT/packages.tgz -C $R . && cp $S $OUT/summary.txt
cat $S
