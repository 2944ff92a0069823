#!/usr/bin/env bash
# Device call (issue 25): kprof.bench against do_bench with a do_bench control, all six call orders
# (bench/python/bench_spread.py); kprof-peaks' DRAM mixes again with the fastest-run roof; the identity program's
# raw and details pages exported from one ncu report (-o, then --import), analysed together. One archive back.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=$OUT; S=$OUT/summary.txt; : > $S
log "$(nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader)"
export PYTHONPATH=/tmp/site KPROF_BINARY=$D/kprof
rm -rf /tmp/site
step install env KPROF_BUILD_DIR=$D python3 -m pip install --no-build-isolation --no-deps --no-index \
  --no-cache-dir --target /tmp/site ./python
step spread python3 bench/python/bench_spread.py 48 --json $OUT/bench_spread.json
cat $R/spread.out | tee -a $S
step peaks $D/kprof-peaks --out $OUT/peaks.json \
  --only dram_copy_kernel_gbps,dram_memcpy_gbps,dram_read_gbps,dram_add_gbps,dram_add_flat_gbps,dram_copy_flat_gbps
cat $R/peaks.err | tee -a $S
mkdir -p $OUT/identity
step ncu-report ncu --clock-control none -o $OUT/identity/report -f python3 examples/programs/ncu_identity.py
step ncu-raw ncu --import $OUT/identity/report.ncu-rep --csv --page raw --print-units base
step ncu-details ncu --import $OUT/identity/report.ncu-rep --csv --page details --print-units base
cp $R/ncu-raw.out $OUT/identity/raw.csv; cp $R/ncu-details.out $OUT/identity/details.csv; rm -f $OUT/identity/report.ncu-rep
step identity-analyze $D/kprof analyze $OUT/identity/raw.csv $OUT/identity/details.csv --no-write
grep -E "^\| " $R/identity-analyze.out | head -8 | tee -a $S
log "done"
cp $S /tmp/summary.txt
(cd $OUT && tar czf /tmp/results.tgz .) && find $OUT -mindepth 1 -delete && mv /tmp/results.tgz /tmp/summary.txt $OUT/
