#!/usr/bin/env bash
# Compile times of a few files of a configured build tree, each compiled with its own ninja command as it stands and
# with an extra flag (default: -DFMT_HEADER_ONLY=1, fmt's implementation in every file as before src/util/fmt_impl.cpp),
# alternating, REPS runs each (default 2), serially. Run it on a quiet machine. bench/RESULTS.md §9zg.
#   bench/compile_ab.sh [build dir] [extra flag]
set -euo pipefail
build=${1:-build/release}
extra=${2:--DFMT_HEADER_ONLY=1}
reps=${REPS:-2}
files="CMakeFiles/kprof_session.dir/src/session/profile.cpp.o CMakeFiles/kprof_analyze.dir/src/analyze/program_advice.cpp.o
CMakeFiles/kprof_tests.dir/tests/test_advice.cpp.o CMakeFiles/kprof.dir/src/cli/app.cpp.o
CMakeFiles/kprof_collect.dir/src/collect/ncu/ncu_import.cpp.o CMakeFiles/kprof_render.dir/src/render/report_markdown.cpp.o"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
cd "$build"
printf '| file | as built (s) | with %s (s) |\n| --- | ---: | ---: |\n' "$extra"
for f in $files; do
  cmd=$(ninja -t commands "$f" | tail -1 | sed "s# -o [^ ]*# -o $out#; s# -MD -MT [^ ]* -MF [^ ]*##")
  as=() with=()
  for _ in $(seq "$reps"); do
    s=$(date +%s.%N); bash -c "$cmd"; as+=("$(printf %.2f "$(echo "$(date +%s.%N) - $s" | bc)")")
    s=$(date +%s.%N); bash -c "${cmd/ -c / $extra -c }"; with+=("$(printf %.2f "$(echo "$(date +%s.%N) - $s" | bc)")")
  done
  printf '| %s | %s | %s |\n' "$(basename "$f" .o)" "${as[*]}" "${with[*]}"
done
