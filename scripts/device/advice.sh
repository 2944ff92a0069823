#!/usr/bin/env bash
# Device call for issue 23 (advice that leads the next step), with the kprof of this tree:
#   1. kprof mla v3 then v4 (b=32 s=16 t=4096), annotation mode, each writing a devlog entry: v4's contract should
#      rank fusing the softmax stage in its top 3, and v4's devlog entry record v3's first estimate against the
#      change realised ("est. X% → realised Y%").
#   2. diag_holdout7 in annotation mode with both counter sources, with the metric list that now has the indexed
#      constant cache (divergent __constant__ indices) and every stall reason.
# Never changes clocks. Expects build/dist with kprof, kprof-kernels, libkprof_inject.so and diag_holdout7
# (carry build/dist-advice.tgz and unpack it first). Results: $OUT/advice.tgz and $OUT/advice-summary.txt.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-advice; rm -rf $R; mkdir -p $R
S=$R/summary.txt; : > $S
STEP_TIMEOUT=${STEP_TIMEOUT:-200}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a $S
kprof --version | tee -a $S
O=$R/profiles; C=$R/cache; MLA="--b=32 --s=16 --t=4096"
step mla_v3_annotation kprof mla v3 $MLA --prof-type=annotation --cache-dir $C --out $O/mla_v3_annotation --devlog --docs $R/docs
step mla_v4_annotation kprof mla v4 $MLA --prof-type=annotation --cache-dir $C --out $O/mla_v4_annotation --devlog --docs $R/docs
step h7_annot_ncu   kprof run --prof-type=annotation --counters-min-share=0 --counters ncu --kernel diag_holdout7 --out $O/h7_annot_ncu -- diag_holdout7 2
step h7_annot_cupti kprof run --prof-type=annotation --counters-min-share=0 --counters cupti --kernel diag_holdout7 --out $O/h7_annot_cupti -- diag_holdout7 2
{
  echo; echo "== mla v4 contract: top 3 =="
  sed -n '/Top 3/,/^$/p' $O/mla_v4_annotation/contract.md
  echo "== devlog (v4 entry: estimate vs realised) =="
  grep -h "Estimate vs realised\|^## " $R/docs/*.md
  for a in h7_annot_ncu h7_annot_cupti; do
    echo "== $a: stage | bottleneck | key issue"
    python3 - $O/$a <<'PYEOF'
import json, sys, glob
d = json.load(open(sys.argv[1] + "/profile.json"))
for s in d["stages"]:
    for k in s["kernels"]:
        b = (k.get("analysis") or {}).get("bottleneck", {})
        print(f"{s['name'][:28]:28} | {b.get('kind','')} | {b.get('key_issue','')[:70]}")
for c in glob.glob(sys.argv[1] + "/counters.json"):
    print("passes", json.load(open(c)).get("passes"))
PYEOF
  done
} 2>&1 | tee -a $S
tar czf $OUT/advice.tgz -C $R . && cp $S $OUT/advice-summary.txt
