#!/usr/bin/env bash
# One device call for the thirty-ninth session's two open items (both committed earlier, never run for want of a
# machine): the SASS-metrics probe (scripts/device/sass-probe.sh: can CUPTI give the counter pass the bytes used per
# sector?), then sets 14 and 16's ncu-mode recaptures with two repetitions (scripts/device/recapture-ncu.sh). Carry
# build/dist-rc.tgz (kprof, libkprof_inject.so, libkprof_c.so, diag_holdout14/16); it is unpacked into build/dist.
# Never changes clocks. Results under $OUT (sass-*, diag_holdout14/16-ncu.tgz, recapture-ncu.txt), logs last.
# PROBE_LIMIT and RECAPTURE_LIMIT (s) bound the two steps; CALIB51=1 adds set 51's fix experiment (below).
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT" || exit 1
[ -f build/dist-rc.tgz ] && tar xzf build/dist-rc.tgz -C build
t0=$SECONDS
timeout ${PROBE_LIMIT:-240} bash scripts/device/sass-probe.sh > "$OUT/sass-probe.log" 2>&1; echo "sass-probe rc=$? $((SECONDS - t0)) s"
t1=$SECONDS
PROGS=${PROGS:-"diag_holdout14 diag_holdout16"} STEP_TIMEOUT=${STEP_TIMEOUT:-150} \
  timeout ${RECAPTURE_LIMIT:-330} bash scripts/device/recapture-ncu.sh > "$OUT/recapture.log" 2>&1
echo "recapture rc=$? $((SECONDS - t1)) s"
# With CALIB51=1 (on an H100, set 51's capture GPU): set 51's fix experiment, JSON in $OUT/calib_pairs51.json.
if [ "${CALIB51:-0}" = 1 ]; then
  t2=$SECONDS
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/calib_pairs51-gpu.txt"
  (cd examples/programs && timeout ${CALIB_LIMIT:-240} python3 calib_pairs51.py 5) > "$OUT/calib_pairs51.json" \
    2> "$OUT/calib_pairs51.err"
  echo "calib_pairs51 rc=$? $((SECONDS - t2)) s"; cat "$OUT/calib_pairs51.json"; tail -5 "$OUT/calib_pairs51.err"
fi
echo "== sass probe (last lines) =="; tail -45 "$OUT/sass-probe.log"
echo "== recapture =="; tail -12 "$OUT/recapture.log"
