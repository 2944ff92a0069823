# Shared by the device scripts (scripts/device-check.sh and scripts/device/*.sh). Source it first; it sets
#   ROOT  the repository, D the binaries carried from scripts/device/pack.sh (build/dist), OUT the results folder
#         the device tool brings back (default /tmp/kprof-out), KPROF_DATA_DIR and PATH (D first);
# and defines, for scripts that set R (their working folder) and S (their summary file):
#   log TEXT...             echo TEXT and append it to $S
#   step NAME cmd...        run cmd with stdout/stderr in $R/NAME.out/.err (under `timeout $STEP_TIMEOUT` when it
#                           is set), append "NAME rc=.. wall s" to $S
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
