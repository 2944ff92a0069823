#!/usr/bin/env bash
# Device call (issue 25): the attainable DRAM roof (kprof-peaks' read:write mixes; clocks never touched), PyTorch
# template instantiations at one shape exported by ncu (examples/programs/ncu_identity.py) and analysed by kprof,
# and five event-mode runs of bench/python/elementwise.py compared with each other. Results in $OUT.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=$OUT; S=$OUT/summary.txt; : > $S
log "kprof $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader)"
# 1. DRAM roof: the six mixes only (the compute peaks stay as measured before).
cp data/devices.json $OUT/devices.json
step peaks $D/kprof-peaks --out $OUT/peaks.json \
  --only dram_copy_kernel_gbps,dram_memcpy_gbps,dram_read_gbps,dram_add_gbps,dram_add_flat_gbps,dram_copy_flat_gbps,dram_gbps
cat $R/peaks.err | tee -a $S
step peaks-import $D/kprof peaks --import $OUT/peaks.json --write-devices $OUT/devices.json --docs $OUT
# 2. ncu raw + details of the identity program (default section set; clocks left alone).
mkdir -p $OUT/identity
step ncu-raw ncu --clock-control none --csv --page raw --print-units base python3 examples/programs/ncu_identity.py
cp $R/ncu-raw.out $OUT/identity/raw.csv
step ncu-details ncu --clock-control none --csv --page details --print-units base python3 examples/programs/ncu_identity.py
cp $R/ncu-details.out $OUT/identity/details.csv
step identity-analyze $D/kprof analyze $OUT/identity/raw.csv $OUT/identity/details.csv --no-write
grep -E "^\| " $R/identity-analyze.out | head -20 | tee -a $S
# 3. Five event runs of one program, then compare 1 with 2 (every stage must match).
mkdir -p $OUT/profiles
for i in 1 2 3 4 5; do
  step event-$i $D/kprof run --prof-type=event -q --kernel elementwise --out $OUT/profiles/event_elementwise_$i -- python3 bench/python/elementwise.py loop
done
step compare-1-2 $D/kprof compare $OUT/profiles/event_elementwise_1 $OUT/profiles/event_elementwise_2
sed -n '/## Notes/,/## Whole/p' $R/compare-1-2.out | tee -a $S
log "done"
# One archive: the device tool brings back a limited number of files.
cp $S /tmp/summary.txt
(cd $OUT && tar czf /tmp/results.tgz .) && find $OUT -mindepth 1 -delete && mv /tmp/results.tgz /tmp/summary.txt $OUT/
