#!/usr/bin/env bash
# One device call: kprof against a program that faults on the GPU or is interrupted while it is profiled
# (examples/programs/misbehave.cu), in every mode. For each run: kprof's exit code (documented in docs/cli.md:
# 7 = the program failed, what was measured is written; 130/143 = SIGINT/SIGTERM), its last message, and the
# artifact it left (a complete one, `<name>.interrupted` with the partial marker, or none). Then: no process of the
# program is left, the GPU lock is free again, and `kprof analyze` refuses the interrupted artifacts (exit 3).
# Never changes clocks. Expects build/dist from scripts/device/pack.sh (carried). Results: $OUT/reliability.tgz and
# $OUT/reliability.txt (the table printed last).
set -u
set -m  # background jobs in their own process group, with default signal dispositions (SIGINT is not ignored)
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-reliability; rm -rf $R; mkdir -p $R
S=$R/summary.txt; : > $S
O=$R/profiles; mkdir -p $O
T=$R/table.txt; : > $T
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
kprof --version | tee -a $S
P=$D/misbehave

# what an artifact path holds: "complete" (report.md, no marker), "interrupted" (<out>.interrupted with marker), ...
state_of() {
  local out=$1
  if [ -d "$out" ] && [ -f "$out/report.md" ] && [ ! -e "$out/.kprof-partial" ]; then echo "complete"
  elif [ -d "$out.interrupted" ] && [ -f "$out.interrupted/.kprof-partial" ]; then echo "interrupted+marker"
  elif [ -d "$out" ]; then echo "dir-without-report"
  else echo "none"; fi
}
leftovers() { pgrep -f "$P|torch_loop.py" > /dev/null && echo "LEFT RUNNING" || echo "none left"; }
row() {  # name expected rc wall
  local name=$1 expect=$2 rc=$3 wall=$4 out=$O/$1
  local st; st=$(state_of "$out")
  local msg; msg=$(grep -E "^kprof: (interrupted|terminated|the profiled program|error)|wrote no trace|trace ends there" \
    $R/$name.err | tr '\n' ' ' | cut -c1-200)
  local warnings; warnings=$(grep -c "^kprof: warning" $R/$name.err)
  local ok=ok; [ "$rc" = "$expect" ] || ok=UNEXPECTED
  printf '| %-22s | %3s | %3s | %-4s | %6s | %-19s | %-13s | %4s | %s |\n' "$name" "$expect" "$rc" "$ok" "$wall" \
    "$st" "$(leftovers)" "$warnings" "$msg" | tee -a $T
  (cd $O && find "$name" "$name.interrupted" -maxdepth 2 2>/dev/null | sort) > $R/$name.tree
}
run_to_end() {  # name expected-rc subcommand kprof-args... (the program runs to its end)
  local name=$1 expect=$2 sub=$3; shift 3
  local t0=$(now)
  timeout 300 kprof $sub --out $O/$name "$@" > $R/$name.out 2> $R/$name.err; local rc=$?
  row $name $expect $rc $(dt $t0 $(now))
}
interrupt() {  # name signal after-seconds expected-rc subcommand kprof-args...
  local name=$1 sig=$2 after=$3 expect=$4 sub=$5; shift 5
  local t0=$(now)
  kprof $sub --out $O/$name "$@" > $R/$name.out 2> $R/$name.err &
  local pid=$!
  sleep $after
  kill -$sig $pid
  local t1=$(now)
  ( sleep 60; kill -KILL $pid 2>/dev/null ) & local guard=$!
  wait $pid; local rc=$?
  kill -- -$guard 2>/dev/null; wait $guard 2>/dev/null  # the guard's group (set -m): its sleep too
  echo "stopped $(dt $t1 $(now)) s after SIG$sig" >> $R/$name.err
  sleep 1
  row $name $expect $rc "$(dt $t1 $(now))"
}

echo "| run | exp | rc | | wall s | artifact | program | warnings | kprof's last words |" >> $T
echo "|---|---:|---:|---|---:|---|---|---:|---|" >> $T
# 1. a kernel that faults (illegal address) and one that traps, in every mode
for kind in fault trap; do
  run_to_end ${kind}_event       7 run --prof-type=event --kernel misbehave -- $P $kind
  run_to_end ${kind}_nsys        7 run --prof-type=nsys --kernel misbehave -- $P $kind
  run_to_end ${kind}_annot_cupti 7 run --prof-type=annotation --counters cupti --kernel misbehave -- $P $kind
  run_to_end ${kind}_annot_ncu   7 run --prof-type=annotation --counters ncu --kernel misbehave -- $P $kind
  run_to_end ${kind}_ncu         7 run --prof-type=ncu --kernel misbehave -- $P $kind
done
# 2. Ctrl-C / SIGTERM while the program runs (it would run 60 s)
interrupt int_event        INT  4 130 run --prof-type=event --kernel misbehave -- $P long 60
interrupt term_nsys        TERM 4 143 run --prof-type=nsys --kernel misbehave -- $P long 60
interrupt int_annot_cupti  INT  6 130 run --prof-type=annotation --counters cupti --kernel misbehave -- $P long 60
interrupt term_annot_ncu   TERM 8 143 run --prof-type=annotation --counters ncu --kernel misbehave -- $P long 60
interrupt int_ncu          INT  8 130 run --prof-type=ncu --kernel misbehave -- $P long 60
# ... a Python program (its own SIGINT handler: KeyboardInterrupt, then exit with the trace written at exit)
cat > $R/torch_loop.py <<'PY'
import time, torch
x = torch.ones(1 << 24, device="cuda")
print("torch loop started", flush=True)
t = time.time()
while time.time() - t < 60:
    x.mul_(0.5).add_(1.0)
    torch.cuda.synchronize()
PY
interrupt int_python       INT  9 130 run --prof-type=event --kernel torch_loop -- python3 $R/torch_loop.py
# ... a program whose fork()ed child (no exec) sleeps in the same process group: the group ends, nothing is left
interrupt fork_term_event  TERM 5 143 run --prof-type=event --kernel misbehave -- $P fork 30
# ... and in the later passes (the traced pass of a 4 s program is over by then): counters, ncu
interrupt int_cupti_pass   INT  6.5 130 run --prof-type=annotation --counters cupti --kernel misbehave -- $P long 4
interrupt term_ncu_metrics TERM 7 143 run --prof-type=annotation --counters ncu --kernel misbehave -- $P long 4
interrupt int_ncu_full     INT  8 130 run --prof-type=ncu --kernel misbehave -- $P long 4
# 2a. fork() without exec: the child's exit() runs the atexit entry it inherited from the tracer library (each
# library of the A/B). The program waits for the child at most 20 s (then exits 4); the trace should hold 6 launches.
for variant in ${KPROF_INJECT_AB:-current=$D/libkprof_inject.so}; do
  vname=${variant%%=*}; lib=${variant#*=}
  for mode in event annotation; do
    name=fork_${vname}_$mode
    counters=; [ $mode = annotation ] && counters="--counters cupti"
    KPROF_INJECT_LIB=$lib run_to_end $name 0 run --prof-type=$mode $counters --kernel misbehave -- $P fork
    log "$name: $(grep -h 'misbehave: fork' $R/$name.out $R/$name.err | head -1 | cut -c1-90); traced launches of scale:" \
      "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for s in d["stages"] for k in s["kernels"] if "scale" in k["kernel"] for l in k["launches"] if l.get("start_ns") is not None))' $O/$name/profile.json 2>&1 | tail -1)"
  done
done
# 2b. Ctrl-C at spread times, many times, in the traced pass (event, ncu): was a trace kept (kprof read one and said
# "the trace ends there"; not whether it holds every launch), how fast did the program stop?
# KPROF_INJECT_AB="name=path ..." alternates tracer libraries (an A/B of the signal path); default: the carried one.
AB=$R/interrupt-ab.txt; : > $AB
for rep in $(seq 1 ${REPS:-6}); do
  for variant in ${KPROF_INJECT_AB:-current=$D/libkprof_inject.so}; do
    vname=${variant%%=*}; lib=${variant#*=}
    for mode in event ncu; do
      after=$(awk -v r=$rep 'BEGIN { printf "%.1f", 1.5 + (r * 0.77) % 4 }')
      name=ab_${vname}_${mode}_$rep
      KPROF_INJECT_LIB=$lib kprof run --out $O/$name --prof-type=$mode --kernel misbehave -- $P long 60 \
        > $R/$name.out 2> $R/$name.err &
      pid=$!; sleep $after; kill -INT $pid; t1=$(now)
      ( sleep 40; kill -KILL $pid 2>/dev/null ) & guard=$!
      wait $pid; rc=$?; stop=$(dt $t1 $(now)); kill -- -$guard 2>/dev/null; wait $guard 2>/dev/null
      kept=no; grep -q "trace ends there" $R/$name.err && kept=yes
      echo "$vname $mode rep=$rep after=$after rc=$rc stop_s=$stop trace_kept=$kept left=$(pgrep -f "$P" | wc -l)" | tee -a $AB
      rm -rf $O/$name $O/$name.interrupted  # keep the folder small; the .err files stay
    done
  done
done
awk '{ split($6,a,"="); split($7,b,"="); k=$1" "$2; n[k]++; if (b[2]=="yes") y[k]++; s[k]+=a[2]; if (a[2]>m[k]) m[k]=a[2] }
     END { for (k in n) printf "interrupt A/B %-16s runs=%d trace_kept=%d mean_stop_s=%.2f max_stop_s=%.2f\n", k, n[k], y[k], s[k]/n[k], m[k] }' \
  $AB | sort | tee -a $S
# 3. after all that: the GPU lock is free (--no-wait would exit 8 otherwise), a clean run still works
run_to_end after_clean_run 0 run --prof-type=event --no-wait --kernel misbehave -- $P long 1
# 4. readers refuse what the interrupted runs left (exit 3)
for d in $O/*.interrupted; do
  [ -d "$d" ] || continue
  b=$(basename $d)
  kprof analyze "$d" --no-write > $R/analyze_$b.out 2>&1; rc=$?
  log "analyze $b: rc=$rc $(grep -m1 -i 'partial\|interrupt' $R/analyze_$b.out | cut -c1-120)"
done
log "processes of the program left: $(pgrep -fa "$P|torch_loop.py" | wc -l)"
log "kprof scratch entries in /tmp (besides this script's $R): $(ls /tmp | grep '^kprof' | grep -vc '^kprof-reliability$')"
cat $T >> $S
# The logs, and of each artifact what a test can replay (its report, profile.json, marker and ncu's pages).
(cd $R && { ls *.err *.out *.tree *.txt 2>/dev/null
  find profiles -maxdepth 3 -type f -size -12M \( -name report.md -o -name profile.json -o -name .kprof-partial \
    -o -name 'ncu_raw.csv' -o -name 'ncu_details.csv' -o -name 'ncu_session.csv' -o -name 'trace.kptrace' \) \
    ! -path '*/ab_*'; } | tar czf $OUT/reliability.tgz -T -)
ls -la $OUT
cp $S $OUT/reliability.txt
echo; cat $S
