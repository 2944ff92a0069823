#!/usr/bin/env bash
# Device call: captures a held-out diagnosis set (PROG=diag_holdout, the default, or diag_holdout2..8: PyTorch,
# cuBLAS, cuDNN, flash-attention and CUB kernels nobody here wrote; examples/programs/$PROG.py; or a CUDA program
# such as PROG=diag_holdout7, run from build/dist when build/dist/$PROG exists) in the three forms the diagnosis
# tests replay: annotation with ncu counters, with CUPTI counters, and ncu mode (--set full); and an nsys timeline.
# Then per artifact: the stages, and how many kernel groups have counters. Never changes clocks. Expects build/dist
# from scripts/device/pack.sh (carried). SKIP_NCU=1 leaves ncu mode out (retake it with recapture-ncu.sh).
# Results: $OUT/$PROG.tgz and $OUT/$PROG-summary.txt.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
PROG=${PROG:-diag_holdout}
R=/tmp/kprof-$PROG; rm -rf $R; mkdir -p $R
S=$R/summary.txt; : > $S
STEP_TIMEOUT=${STEP_TIMEOUT:-240}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a $S
ncu --version | tail -1 | tee -a $S
kprof --version | tee -a $S
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())' | tee -a $S
O=$R/profiles
# A CUDA program (built into build/dist, on PATH) takes only the repetitions: its second argument is a case list.
# A Python one also takes `nocheck` in the captures.
if [ -x "$D/$PROG" ]; then PY="$PROG"; NC=""; else PY="python3 examples/programs/$PROG.py"; NC=nocheck; fi
step plain_holdout       $PY 2
cat $R/plain_holdout.out >> $S
step annot_holdout_ncu   kprof run --prof-type=annotation --counters-min-share=0 --counters ncu --kernel $PROG --out $O/annot_holdout_ncu -- $PY 2 $NC
step annot_holdout_cupti kprof run --prof-type=annotation --counters-min-share=0 --counters cupti --kernel $PROG --out $O/annot_holdout_cupti -- $PY 2 $NC
# Two repetitions in ncu mode too: its tracer pass needs two instances of a range for the range's figures (the first
# call of a range plans library calls or compiles); ncu itself profiles one launch per kernel and launch shape.
[ -n "${SKIP_NCU:-}" ] || step ncu_holdout         kprof run --prof-type=ncu --kernel $PROG --out $O/ncu_holdout -- $PY 2 $NC
# Two repetitions in the timeline too, so that the labeller sees a warm instance of each range beside the cold first
# one (set 32's labellers judged the eager chains from one cold repetition).
step nsys_holdout        kprof run --prof-type=nsys --kernel $PROG --out $O/nsys_holdout -- $PY 2 $NC
du -sh $O/* | tee -a $S
for a in $O/*; do
  python3 - "$a" <<'PYEOF' | tee -a $S
import json, sys
d = json.load(open(sys.argv[1] + "/profile.json"))
groups = [k for s in d.get("stages", []) for k in s.get("kernels", [])]
judged = [k for k in groups if k.get("analysis", {}).get("bottleneck", {}).get("kind", "") not in ("unknown", "")]
print(sys.argv[1].split("/")[-1], f"{len(judged)}/{len(groups)} kernel groups judged;",
      "stages:", ", ".join(s.get("name", "")[:28] for s in d.get("stages", [])))
for w in d.get("warnings", [])[:4]:
    print("  warning:", (w.get("text", "") if isinstance(w, dict) else str(w))[:160])
import glob, os
for c in glob.glob(sys.argv[1] + "/counters*.json"):
    k = json.load(open(c))
    print("  counters:", os.path.basename(c), "passes", k.get("passes"), "unsupported", k.get("unsupported"))
PYEOF
done
[ -f $O/ncu_holdout/ncu/ncu_source.csv ] && head -c 300 $O/ncu_holdout/ncu/ncu_source.csv | tee -a $S; echo | tee -a $S
find $R -name '*.ncu-rep' -size +12M -exec sh -c 'echo "dropped large $1"; rm "$1"' _ {} \; | tee -a $S
tar czf $OUT/$PROG.tgz -C $R . && cp $S $OUT/$PROG-summary.txt
echo "=== plain"; tail -3 $R/plain_holdout.out; tail -3 $R/plain_holdout.err
echo "=== summary"; cat $S
