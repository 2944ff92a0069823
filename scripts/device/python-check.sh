#!/usr/bin/env bash
# Device call: the Python package on the GPU machine (issue 13), over build/dist from scripts/device/pack.sh.
#   install  pip install ./python (offline, no build isolation) into /tmp/site for the Python that holds torch and
#            triton there; `import kprof` from outside the repository
#   pytest   python/tests with the GPU present (the GPU tests run instead of skipping)
#   bench    bench/python/bench_vs_dobench.py: kprof.bench against triton.testing.do_bench, alternating calls
#   example  examples/python/softmax_versions.py: v1 and v2 in every mode (event, annotation, nsys, ncu), then
#            `kprof compare` v1 → v2 (event) and `kprof devlog` for both (docs folder in the results)
# PARTS selects (default "install pytest bench example"). Never changes clocks. Results: $OUT/python.tgz and
# $OUT/python-summary.txt.
set -u
. "$(dirname "$0")/steps.sh"; cd "$ROOT"
R=/tmp/kprof-python; rm -rf $R; mkdir -p $R
S=$R/summary.txt; : > $S
STEP_TIMEOUT=${STEP_TIMEOUT:-180}
PARTS=${PARTS:-install pytest bench example}
has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
python3 -c 'import sys, torch, triton; print("python", sys.version.split()[0], "torch", torch.__version__, "triton", triton.__version__)' | tee -a $S

export PYTHONPATH=/tmp/site KPROF_BINARY=$D/kprof
rm -rf /tmp/site
step install env KPROF_BUILD_DIR=$D python3 -m pip install --no-build-isolation --no-deps --no-index \
  --no-cache-dir --target /tmp/site ./python
step import sh -c 'cd /tmp && python3 -c "import kprof; print(kprof.__file__, kprof.library_version(), kprof.gpu_status())"'
cat $R/import.out | tee -a $S
has pytest && step pytest python3 -m pytest -q -rs python/tests
has pytest && tail -5 $R/pytest.out | tee -a $S
has bench && step bench python3 bench/python/bench_vs_dobench.py ${BENCH_CALLS:-5} --json $R/bench_vs_dobench.json
has bench && cat $R/bench.out | tee -a $S
if has example; then
  O=$R/py-softmax; X="python3 examples/python/softmax_versions.py"
  for v in v1 v2; do
    for m in event annotation nsys ncu; do
      step ex_${v}_$m $X --version $v --mode $m --out $O/$m-$v
      log "  $(grep -m1 '^artifact:' $R/ex_${v}_$m.out) $(grep -m1 '^config:' $R/ex_${v}_$m.out)"
    done
    step ex_${v}_bench $X --version $v --bench
    log "  $(tail -1 $R/ex_${v}_bench.out)"
  done
  a1=$(sed -n 's/^artifact: //p' $R/ex_v1_event.out); a2=$(sed -n 's/^artifact: //p' $R/ex_v2_event.out)
  if [ -n "$a1" ] && [ -n "$a2" ]; then
    step compare kprof compare $a1 $a2
    mkdir -p $R/docs
    step devlog_v1 kprof devlog --docs $R/docs $(sed -n 's/^artifact: //p' $R/ex_v1_annotation.out)
    step devlog_v2 kprof devlog --docs $R/docs $(sed -n 's/^artifact: //p' $R/ex_v2_annotation.out)
  fi
fi
find $R -name '*.ncu-rep' -size +12M -exec sh -c 'echo "dropped large $1"; rm "$1"' _ {} \; | tee -a $S
tar czf $OUT/python.tgz -C $R . && cp $S $OUT/python-summary.txt
echo "=== summary"; cat $S
