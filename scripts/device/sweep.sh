#!/usr/bin/env bash
# Device call (issue 28): the same small kprof bench sweep with --executor=local and --executor=gpus on this
# machine's GPU(s), then whether the two tables agree: the same rows, statuses and Mann-Whitney verdicts, speedups
# within run-to-run noise (a second local run gives that noise); and the autotuning of gemm v2 spread by
# `kprof gemm v2 --autotune --executor=gpus`, after which a local --autotune finds every config cached.
# Never changes clocks (params.json records them). Expects build/dist from scripts/device/pack.sh (carried).
# Results: $OUT/sweep.tgz (the three bench folders with bench.md/json, run folders, params.json, the spool; the
# autotune logs) and $OUT/sweep-summary.txt. About 3 minutes on an H200.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-sweep; rm -rf $R; mkdir -p $R; S=$R/summary.txt; : > $S
export KPROF_BIN=$D/kprof KPROF_KERNELS=$D/kprof-kernels STEP_TIMEOUT=100
query=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_event_reasons.active
nvidia-smi --query-gpu=$query --format=csv > $R/gpu-before.csv 2>&1
log "gpus: $(nvidia-smi -L 2>&1 | tr '\n' ';')"
cat > $R/sweep.toml <<'TOML'
schema = "kprof.bench.sweeps/1"
runs = 10
[packages.gemm]
points = [ { m = 1024, n = 1024, k = 1024 }, { m = 2048, n = 2048, k = 2048 } ]
[packages.overlap]
points = [ {} ]
TOML
common="--sweep $R/sweep.toml --packages gemm,overlap --cache-dir $R/cache --no-wait"
# The first run tunes (fills the cache); the three timed sweeps then all start from the same tuned configs.
step tune-first   $D/kprof bench $common --out $R/tune-first
step local        $D/kprof bench $common --out $R/local
step gpus         $D/kprof bench $common --out $R/gpus --executor=gpus
step local-again  $D/kprof bench $common --out $R/local-again
python3 - "$R" <<'PY' | tee -a $S
import json, sys, os
r = sys.argv[1]
def rows(name):
    try:
        t = json.load(open(os.path.join(r, name, "bench.json")))
    except Exception as e:
        print(f"{name}: no bench.json ({e})"); return None
    return {(x["package"], x["point"], x["version"]): x for x in t["rows"]}
def diff(a_name, b_name):
    a, b = rows(a_name), rows(b_name)
    if a is None or b is None:
        return False
    same = set(a) == set(b)
    if not same:
        print(f"{a_name} vs {b_name}: different rows: {sorted(set(a) ^ set(b))}")
    worst = 0.0
    for k in sorted(set(a) & set(b)):
        x, y = a[k], b[k]
        agree = x["status"] == y["status"] and x.get("verdict", "") == y.get("verdict", "")
        med = lambda z: (z.get("time_ms") or {}).get("median")
        rel = abs(med(x) / med(y) - 1) * 100 if med(x) and med(y) else 0.0
        worst = max(worst, rel)
        print(f"  {' '.join(k):40s} {x['status']:6s} {x.get('verdict') or '-':8s} | {y['status']:6s} "
              f"{y.get('verdict') or '-':8s} | median {med(x)} vs {med(y)} ms ({rel:.1f}%){'' if agree else '  DIFFERS'}")
        same = same and agree
    print(f"{a_name} vs {b_name}: tables {'MATCH' if same else 'DIFFER'} (statuses and verdicts); "
          f"largest median difference {worst:.1f}%")
    return same
ok = diff("local", "gpus")
diff("local", "local-again")
params = json.load(open(next(os.path.join(d, "params.json") for d, _, f in os.walk(os.path.join(r, "gpus", "runs"))
                             if "params.json" in f)))
print("gpus params.json:", json.dumps({k: params.get(k) for k in ("executor", "worker", "host", "gpu")}))
print("RESULT:", "local and gpus tables match" if ok else "local and gpus tables DIFFER")
PY
# Autotuning spread over the GPUs (one task per tile config), then a local --autotune that must find all cached.
step autotune-gpus  $D/kprof gemm v2 --m=1536 --n=1536 --k=1536 --autotune --executor=gpus --cache-dir $R/cache2 --out-root $R/profiles --no-wait
step autotune-local $D/kprof gemm v2 --m=1536 --n=1536 --k=1536 --autotune --cache-dir $R/cache2 --out-root $R/profiles --no-wait -q
tries=$(find $R/cache2 -path '*.entries/*.json' | wc -l)
log "autotune cache: $tries entry file(s); local pass after gpus: $(grep -c ': cached' $R/autotune-local.err) cached, $(grep -cE 'config [0-9]+/[0-9]+ .*: (ok|launch|exceeds|wrong)' $R/autotune-local.err) measured again"
nvidia-smi --query-gpu=$query --format=csv > $R/gpu-after.csv 2>&1
tar czf $OUT/sweep.tgz -C $R . && cp $S $OUT/sweep-summary.txt
cat $S
