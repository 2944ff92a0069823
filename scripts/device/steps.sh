# Shared by the device scripts (scripts/device-check.sh and scripts/device/*.sh). Source it first; it sets
#   ROOT  the repository, D the binaries carried from scripts/device/pack.sh (build/dist), OUT the results folder
#         the device tool brings back (default /tmp/kprof-out), KPROF_DATA_DIR and PATH (D first);
# and defines, for scripts that set R (their working folder) and S (their summary file):
#   log TEXT...             echo TEXT and append it to $S
#   step NAME cmd...        run cmd with stdout/stderr in $R/NAME.out/.err (under `timeout $STEP_TIMEOUT` when it
#                           is set), append "NAME rc=.. wall s" to $S
#   counter_pass LABEL LIST ROUND -- program...   (scripts that also set TABLE) the annotation counter pass alone, every
#                           kernel profiled, with the metric list of /tmp/kprof-data-LIST (KPROF_DATA_DIR); appends
#                           "LABEL LIST ROUND wall_s passes replay_med sum_s" to $TABLE (a non-zero rc to $S) and keeps
#                           the counter file as $R/counters-LABEL-LIST-ROUND.json (issue 27's cost-*.sh)
#   traced [VAR=value ...]  run streams_nvtx_graph under libkprof_inject.so with those KPROF_TRACE_* settings and
#                           print its launch_bound_ms line: the tracer-overhead measurement (bench/RESULTS.md §2)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
D=$ROOT/build/dist
OUT=${OUT:-/tmp/kprof-out}
mkdir -p "$OUT"
export KPROF_DATA_DIR=$ROOT/data PATH=$D:$PATH PYTHONUNBUFFERED=1
log() { echo "$*" | tee -a $S; }
now() { echo $EPOCHREALTIME; }
dt() { awk -v a=$1 -v b=$2 'BEGIN{printf "%.2f", b-a}'; }
step() {
  local name=$1; shift; local t0=$(now)
  ${STEP_TIMEOUT:+timeout $STEP_TIMEOUT} "$@" > $R/$name.out 2> $R/$name.err; local rc=$?
  log "$(printf '%-30s rc=%-3s %8s s' $name $rc $(dt $t0 $(now)))"
}
traced() {
  env CUDA_INJECTION64_PATH=$D/libkprof_inject.so NVTX_INJECTION64_PATH=/usr/local/cuda/lib64/libcupti.so \
    KPROF_TRACE_FILE=/tmp/kprof-overhead.kptrace "$@" $D/streams_nvtx_graph | grep launch_bound_ms
}
counter_pass_header() { printf '%-22s %-10s %-5s %7s %6s %10s %8s\n' program list round wall_s passes replay_med sum_s; }
counter_pass() {
  local label=$1 list=$2 round=$3; shift 4
  local o=$R/out-$label-$list-$round t0; t0=$(now)
  KPROF_DATA_DIR=/tmp/kprof-data-$list timeout 200 kprof run --prof-type=annotation --counters-min-share=0 \
    --kernel "$label" --out-root "$o" -- "$@" > "$o.out" 2> "$o.err"
  local rc=$? w f; w=$(dt $t0 $(now)); f=$(find "$o" -name counters.json | head -1)
  [ $rc = 0 ] || log "counter_pass $label $list round $round rc=$rc"
  [ -n "$f" ] && cp "$f" "$R/counters-$label-$list-$round.json"
  printf '%-22s %-10s %-5s %7s %s\n' "$label" "$list" "$round" "$w" "$( [ -n "$f" ] && python3 - "$f" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1])); ks = [k["replay_wall_ms"] for k in d["kernels"]]
print("%6s %10.0f %8.2f" % (d["passes"], statistics.median(ks), sum(ks) / 1000))
PY
)" | tee -a "$TABLE"
}
