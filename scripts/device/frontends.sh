#!/usr/bin/env bash
# Device call: every front end and mode after the plug-in architecture step (issue 22), over build/dist from
# scripts/device/pack.sh (carried). `kprof run` in each mode on the bundled probe program (annotation with both
# counter sources, event, nsys, ncu), a kernel package through session::package_and_publish (`kprof mla v4`, event
# and annotation), the C++ API example, and the Python package (pytest with the GPU present, the Triton softmax
# example in every mode: scripts/device/python-check.sh). Never changes clocks (ncu gets --clock-control none).
# Results: $OUT/frontends.tgz and $OUT/frontends-summary.txt; the table is printed last.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-frontends; rm -rf $R; mkdir -p $R
S=$R/summary.txt; : > $S
STEP_TIMEOUT=${STEP_TIMEOUT:-240}
O=$R/profiles
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a $S
kprof --version | tee -a $S
step run_event      kprof run --prof-type=event --kernel probe --out $O/event_probe -- $D/probe_kernels 3
step run_nsys       kprof run --prof-type=nsys --kernel probe --out $O/nsys_probe -- $D/probe_kernels 3
step run_annot      kprof run --prof-type=annotation --kernel probe --out $O/annotation_probe_cupti -- $D/probe_kernels 1
step run_annot_ncu  kprof run --prof-type=annotation --counters ncu --kernel probe --out $O/annotation_probe_ncu -- $D/probe_kernels 1
step run_ncu        kprof run --prof-type=ncu --kernel probe --out $O/ncu_probe -- $D/probe_kernels 1
step run_json       kprof run --prof-type=event --json --kernel probe --out $O/event_probe_json -- $D/probe_kernels 1
step pkg_event      kprof mla v4 --b=32 --s=16 --t=4096 --prof-type=event --out $O/mla_v4_event
step pkg_annot      kprof mla v4 --b=32 --s=16 --t=4096 --prof-type=annotation --out $O/mla_v4_annotation
step pkg_dry        kprof mla v4 --b=32 --s=16 --t=4096 --prof-type=annotation --dry-run
step api_example    $D/profile_plan_example $O/api
step reanalyse      kprof analyze $O/annotation_probe_cupti --no-write
step compare        kprof compare $O/event_probe $O/event_probe_json
# The contract heads and the warnings' codes, for the record.
for d in $O/*/; do
  [ -f $d/contract.md ] && { echo "== $(basename $d)"; sed -n '1,40p' $d/contract.md; } >> $R/contracts.txt
  [ -f $d/profile.json ] && python3 -c "import json,sys; w=json.load(open('$d/profile.json')).get('warnings', []); print('$(basename $d)', [x.get('code') if isinstance(x, dict) else 'text' for x in w])" >> $R/warning-codes.txt
done
PARTS="install pytest example" OUT=$R/python bash scripts/device/python-check.sh > $R/python-check.log 2>&1
log "python-check rc=$? (see python/python-summary.txt)"
cp /tmp/kprof-python/summary.txt $R/python-summary.txt 2>/dev/null
find $O -name '*.kptrace' -size +2M -delete
tar czf $OUT/frontends.tgz -C /tmp kprof-frontends
cp $S $OUT/frontends-summary.txt
echo; cat $S; tail -3 $R/python-summary.txt 2>/dev/null; cat $R/warning-codes.txt 2>/dev/null
