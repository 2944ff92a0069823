#!/usr/bin/env bash
# Time and peak memory of `kprof analyze` on large `--set full` raw pages (issue 12: 200 MB in ≤ 3 s, ≤ 1 GB).
# Pages of 25/50/100/200 MB are built by bench/make_raw_page.py from the H200 corpus export; each size runs RUNS
# times (default 3) under /usr/bin/time -v, and the median wall time, CPU time and peak RSS are printed as a
# Markdown table (bench/RESULTS.md, section 10), twice: `--no-write` (import, analysis, printed contract) and with the
# artifact written to a scratch directory (the input copied into it, profile.json with the kept launches).
#
# ANCHOR=path/to/another/kprof: the same runs of that binary too, alternating with this one run by run (so both see
# the same machine load), and a last column with this kprof's median wall time over the anchor's.
#
#   bench/scale_csv.sh [SIZES_MB...]     e.g. bench/scale_csv.sh 25 50 100 200
set -euo pipefail
cd "$(dirname "$0")/.."
kprof=${KPROF:-build/release/kprof}
anchor=${ANCHOR:-}
runs=${RUNS:-3}
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(25 50 100 200)
work=$(mktemp -d "${TMPDIR:-/tmp}/kprof-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# One run of binary $1 in mode $2 on page $3: appends wall (s), user+system CPU (s) and peak RSS (MiB) to $work/$4.*
one_run() {
  local bin=$1 mode=$2 page=$3 tag=$4 out
  rm -rf "$work/out"
  if [ "$mode" = write ]; then out=(--out "$work/out"); else out=(--no-write); fi
  /usr/bin/time -v "$bin" analyze "$page" "${out[@]}" >"$work/stdout" 2>"$work/time" || {
    cat "$work/time" >&2; exit 1; }
  # "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:02.31"
  sed -n 's/.*Elapsed (wall clock).*: //p' "$work/time" |
    awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }' >>"$work/$tag.wall"
  awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { print u + s }' "$work/time" >>"$work/$tag.cpu"
  sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time" | awk '{ print $1 / 1024 }' >>"$work/$tag.rss"
}
row() {  # $1 label, $2 tag, $3 MB, $4 launches, $5 mode; prints one table row
  local wall cpu rss
  wall=$(median <"$work/$2.wall") cpu=$(median <"$work/$2.cpu") rss=$(median <"$work/$2.rss")
  awk -v who="$1" -v mb="$3" -v n="$4" -v mode="$5" -v r="$runs" -v w="$wall" -v c="$cpu" -v m="$rss" -v ratio="${6:-}" 'BEGIN {
    printf "| %s | %s | %d | %s | %d | %.2f | %.2f | %.0f | %.2f | %.0f |%s\n", who, mb, n, mode, r, w, c, m,
      w / mb * 100, m / mb * 100, (ratio == "" ? "" : " " ratio " |") }'
}
header="| kprof | raw page (MB) | launches | artifact | runs | median wall (s) | median CPU (s) | median peak RSS (MiB) | s per 100 MB | MiB per 100 MB |"
rule="|---|---:|---:|---|---:|---:|---:|---:|---:|---:|"
if [ -n "$anchor" ]; then header="$header wall / anchor's |"; rule="$rule---:|"; fi
echo "$header"
echo "$rule"
for mb in "${sizes[@]}"; do
 page=$work/raw_${mb}mb.csv
 launches=$(python3 bench/make_raw_page.py "$mb" "$page" | sed -n 's/.*MB, \([0-9]*\) launches/\1/p')
 actual_mb=$(awk -v b="$(stat -c %s "$page")" 'BEGIN { printf "%.1f", b / 1e6 }')
 for mode in no-write write; do
  rm -f "$work"/*.wall "$work"/*.cpu "$work"/*.rss
  for _ in $(seq "$runs"); do
    [ -n "$anchor" ] && one_run "$anchor" "$mode" "$page" anchor
    one_run "$kprof" "$mode" "$page" this
  done
  if [ -n "$anchor" ]; then
    ratio=$(awk -v a="$(median <"$work/anchor.wall")" -v b="$(median <"$work/this.wall")" 'BEGIN { printf "%.2f", b / a }')
    row anchor anchor "$actual_mb" "$launches" "$mode" "—"
    row this this "$actual_mb" "$launches" "$mode" "$ratio"
  else
    row this this "$actual_mb" "$launches" "$mode"
  fi
 done
 rm -f "$page"
done
