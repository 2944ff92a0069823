#!/usr/bin/env bash
# Time and peak memory of `kprof analyze` on large `--set full` raw pages (issue 12: 200 MB in ≤ 3 s, ≤ 1 GB).
# Pages of 25/50/100/200 MB are built by bench/make_raw_page.py from the H200 corpus export; each size runs RUNS
# times (default 3) under /usr/bin/time -v, and the median wall time and median peak RSS are printed as a
# Markdown table (bench/RESULTS.md, section 10), twice: `--no-write` (import, analysis, printed contract) and with the
# artifact written to a scratch directory (the input copied into it, profile.json with the kept launches).
#
#   bench/scale_csv.sh [SIZES_MB...]     e.g. bench/scale_csv.sh 25 50 100 200
set -euo pipefail
cd "$(dirname "$0")/.."
kprof=${KPROF:-build/release/kprof}
runs=${RUNS:-3}
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(25 50 100 200)
work=$(mktemp -d "${TMPDIR:-/tmp}/kprof-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "| raw page (MB) | launches | artifact | runs | median wall (s) | median peak RSS (MiB) | s per 100 MB | MiB per 100 MB |"
echo "|---:|---:|---|---:|---:|---:|---:|---:|"
for mb in "${sizes[@]}"; do
 for mode in no-write write; do
  page=$work/raw_${mb}mb.csv
  launches=$(python3 bench/make_raw_page.py "$mb" "$page" | sed -n 's/.*MB, \([0-9]*\) launches/\1/p')
  actual_mb=$(awk -v b="$(stat -c %s "$page")" 'BEGIN { printf "%.1f", b / 1e6 }')
  : >"$work/wall" && : >"$work/rss"
  for _ in $(seq "$runs"); do
    rm -rf "$work/out"
    if [ "$mode" = write ]; then out=(--out "$work/out"); else out=(--no-write); fi
    /usr/bin/time -v "$kprof" analyze "$page" "${out[@]}" >"$work/stdout" 2>"$work/time" || {
      cat "$work/time" >&2; exit 1; }
    # "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:02.31"
    sed -n 's/.*Elapsed (wall clock).*: //p' "$work/time" |
      awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }' >>"$work/wall"
    sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time" | awk '{ print $1 / 1024 }' >>"$work/rss"
  done
  wall=$(median <"$work/wall")
  rss=$(median <"$work/rss")
  awk -v mb="$actual_mb" -v n="$launches" -v mode="$mode" -v r="$runs" -v w="$wall" -v m="$rss" 'BEGIN {
    printf "| %s | %d | %s | %d | %.2f | %.0f | %.2f | %.0f |\n", mb, n, mode, r, w, m, w / mb * 100, m / mb * 100 }'
 done
  rm -f "$page"
done
