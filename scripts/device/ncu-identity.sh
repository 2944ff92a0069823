#!/usr/bin/env bash
# Device call: does ncu (as kprof drives it) profile two instantiations of one template that share a launch shape?
# diag_holdout3.py's swiglu_bf16 runs PyTorch's silu and mul vectorized_elementwise_kernel with one shape. Annotation
# with ncu counters, then: the rows of ncu's raw page, and each swiglu group's counter duration against its median.
# Then the diagnosis corpus's PyTorch script again in annotation with ncu counters (as scripts/device/corpus.sh
# does), whose earlier capture gave one add kernel's counters to ~20 other elementwise kernels of the same shape.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-ncu-identity; rm -rf $R; mkdir -p $R; S=$R/summary.txt; : > $S
A=$R/annot
kprof run --prof-type=annotation --counters-min-share=0 --counters ncu --kernel diag_holdout3 --out $A -- \
  python3 examples/programs/diag_holdout3.py 2 nocheck > $R/annot.out 2> $R/annot.err; log "annotation rc=$?"
grep -o -- "--kernel-name-base mangled" $A/ncu/ncu_console.log $R/annot.err 2>/dev/null | head -1 | tee -a $S
python3 - "$A" <<'PY' | tee -a $S
import csv, json, sys
a = sys.argv[1]
rows = list(csv.reader([l for l in open(a + "/ncu/ncu_raw.csv") if l.startswith('"')]))
h = rows[0]
print("ncu profiled", len(rows) - 2, "launches; vectorized_elementwise_kernel rows:",
      [r[h.index("Kernel Name")][:70] for r in rows[2:] if "vectorized_elementwise_kernel<8" in r[h.index("Kernel Name")]])
d = json.load(open(a + "/profile.json"))
for s in d["stages"]:
    if s["name"] == "swiglu_bf16":
        for k in s["kernels"]:
            print("swiglu group", k["signature"][50:85], "median", k["duration_ns"]["median"],
                  "counter duration", k["metrics"].get("duration_ns"), "dram", k["metrics"].get("dram_bytes"))
PY
T=$R/annot_torch_ncu
kprof run --prof-type=annotation --counters-min-share=0 --counters ncu --kernel diag_torch --out $T -- \
  python3 examples/programs/diag_torch.py 2 > $R/torch.out 2> $R/torch.err; log "annot_torch_ncu rc=$?"
python3 - "$T" <<'PY' | tee -a $S
import json, sys
d = json.load(open(sys.argv[1] + "/profile.json"))
groups = [k for s in d["stages"] for k in s["kernels"]]
print("diag_torch: groups", len(groups), "with counters", sum(1 for k in groups if not k["counters_note"]),
      "notes:", sorted({k["counters_note"] for k in groups if k["counters_note"]}))
PY
tar czf $OUT/ncu-identity.tgz -C $R . ; cp $S $OUT/ncu-identity.txt
