#!/usr/bin/env bash
# Device call: the fix experiments (bench/fix_experiments/README.md) on the calibration-pair harness. Builds
# examples/programs/calib_pairs28.cu, calib_pairs35_fences.cu, calib_pairs47.cu, calib_pairs48.cu and calib_pairs50.cu
# (PROGS="..." picks some) with nvcc (the
# flags the old bench/fix_experiments/*.cu were built with, plus -lineinfo as CMake's kprof_test_program), runs each
# once (default: 5 warm-up rounds, then 30 rounds of one call of each variant, alternating; a first argument sets the
# rounds) and writes, with <gpu> the GPU's short name (h100, h200, ...) and <date> today's YYYY-MM-DD:
#   $OUT/<name>-<gpu>-<date>.txt    everything the program printed: its stderr (each pair's output check, "<case>:
#                                   check ok" or "check MISMATCH ...", and any skip) followed by its stdout (the JSON)
#   $OUT/<name>-<gpu>-<date>.json   the JSON alone (the format of examples/h100/fix-pairs/set<N>-timings.json, which
#                                   bench/version_pairs.py reads)
#   $OUT/<name>.build.log           nvcc's output
# and ends with a table of pair / before / after / realised gain (medians, us). Never changes clocks or GPU modes.
# Run from the repository root:  scripts/device/fix_pairs_rerun.sh [rounds]
set -u
# shellcheck source=scripts/device/steps.sh
. "$(dirname "$0")/steps.sh"; cd "$ROOT" || exit 1
ROUNDS=${1:-}
NVCC=${NVCC:-nvcc}
command -v "$NVCC" > /dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
PROGS=${PROGS:-"calib_pairs28 calib_pairs35_fences calib_pairs47 calib_pairs48 calib_pairs50"}
FLAGS=(-std=c++17 -O3 -arch=sm_90 -lineinfo --extended-lambda)
RUN_TIMEOUT=${RUN_TIMEOUT:-240}

gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader)
echo "$gpus"
gpu_name=$(echo "$gpus" | head -1)  # the programs run on device 0
gpu=$(echo "$gpu_name" | grep -oE '\b[A-Z]+[0-9]+[A-Za-z]*\b' | head -1 | tr '[:upper:]' '[:lower:]')
[ -n "$gpu" ] || gpu=$(echo "$gpu_name" | sed 's/^NVIDIA //' | tr '[:upper:] ' '[:lower:]-' | tr -cd 'a-z0-9-')
gpu=${gpu:-gpu}
day=$(date +%Y-%m-%d)
B=/tmp/kprof-fix-pairs; rm -rf "$B"; mkdir -p "$B"

# Build the four at once (or take the ones carried in build/dist, built with the same flags where the sources are:
# the device's time is not spent compiling).
status=0
declare -A pid
for p in $PROGS; do
  if [ -x "$D/$p" ]; then
    cp "$D/$p" "$B/$p" && echo "$p: carried in build/dist" > "$OUT/$p.build.log" &
  else
    "$NVCC" "${FLAGS[@]}" "examples/programs/$p.cu" -o "$B/$p" > "$OUT/$p.build.log" 2>&1 &
  fi
  pid[$p]=$!
done
for p in $PROGS; do
  if wait "${pid[$p]}"; then
    echo "$p: $(grep -q carried "$OUT/$p.build.log" && echo "carried in build/dist" || echo "built ($NVCC ${FLAGS[*]})")"
  else
    echo "$p: build failed (rc=$?), see $OUT/$p.build.log"; tail -5 "$OUT/$p.build.log"; status=1
  fi
done

# Run them one after the other (one GPU, nothing else on it).
for p in $PROGS; do
  [ -x "$B/$p" ] || continue
  base=$OUT/$p-$gpu-$day
  t0=$(now)
  timeout "$RUN_TIMEOUT" "$B/$p" ${ROUNDS:+"$ROUNDS"} > "$base.json" 2> "$B/$p.err"; rc=$?
  cat "$B/$p.err" "$base.json" > "$base.txt"
  echo "$p rc=$rc $(dt "$t0" "$(now)") s -> $base.txt"
  cat "$B/$p.err"
  [ $rc = 0 ] || status=1
done

# The table: one row per pair line of the JSON (calib::print_case writes a pair on one line).
echo
echo "device: $gpu_name"
echo "| pair | before (us) | after (us) | realised | outputs |"
echo "| --- | --: | --: | --: | --- |"
for p in $PROGS; do
  [ -f "$OUT/$p-$gpu-$day.json" ] || continue
  awk '
    function val(key,   s) {
      if (!match($0, "\"" key "\": [^,}]+")) return ""
      s = substr($0, RSTART, RLENGTH); sub(/^[^:]*: */, "", s); gsub(/"/, "", s); return s
    }
    /^    "[^"]+": \{/ {
      match($0, /"[^"]+"/); name = substr($0, RSTART + 1, RLENGTH - 2)
      if (match($0, /"error": "/)) {
        e = substr($0, RSTART + RLENGTH); sub(/"\}.*$/, "", e)
        printf "| %s | - | - | - | error: %s |\n", name, substr(e, 1, 80); next
      }
      b = 1000 * val("before_ms"); a = 1000 * val("after_ms")
      printf "| %s | %.1f | %.1f | %.1f%% | %s |\n", name, b, a, (b > 0 ? 100 * (1 - a / b) : 0),
             val("outputs_match") == "true" ? "match" : "MISMATCH"
    }' "$OUT/$p-$gpu-$day.json"
done
exit $status
