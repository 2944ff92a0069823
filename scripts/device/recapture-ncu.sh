#!/usr/bin/env bash
# Device call: retakes only the ncu-mode capture (Nsight Compute --set full, two repetitions) of held-out sets whose
# first capture ran one repetition or was cut at the step limit. PROGS="diag_holdout20 diag_holdout23 ..." (CUDA ones
# from build/dist, Python ones from examples/programs; REPS=1 for one repetition). Never changes clocks (kprof passes
# --clock-control none).
# Results: $OUT/<prog>-ncu.tgz (the ncu pages, trace and profile.json; the .ncu-rep left out) and $OUT/recapture-ncu.txt.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-recapture-ncu; rm -rf $R; mkdir -p $R
S=$OUT/recapture-ncu.txt   # appended: several calls of this script in one device call share it
STEP_TIMEOUT=${STEP_TIMEOUT:-240}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee -a $S
kprof --version | tee -a $S
for PROG in $PROGS; do
  if [ -x "$D/$PROG" ]; then PY="$PROG"; NC=""; else PY="python3 examples/programs/$PROG.py"; NC=nocheck; fi
  O=$R/$PROG; mkdir -p $O
  step ${PROG}_ncu kprof run --prof-type=ncu --kernel $PROG --out $O/ncu_holdout -- $PY ${REPS:-2} $NC
  a=$(ls -d $O/ncu_holdout* | head -1)
  python3 - "$a" <<'PYEOF' | tee -a $S
import json, sys
d = json.load(open(sys.argv[1] + "/profile.json"))
groups = [k for s in d.get("stages", []) for k in s.get("kernels", [])]
judged = [k for k in groups if k.get("analysis", {}).get("bottleneck", {}).get("kind", "") not in ("unknown", "")]
print(sys.argv[1].split("/")[-2], sys.argv[1].split("/")[-1], f"{len(judged)}/{len(groups)} kernel groups judged")
PYEOF
  find $O -name '*.ncu-rep' -delete
  tar czf $OUT/$PROG-ncu.tgz -C $O .
done
cat $S
