#!/usr/bin/env bash
# Re-analyses every committed H200 artifact under examples/h200/ in place with the kprof built in build/release
# (`kprof analyze <dir> --out <dir> --replace`: rebuilt from its raw collector files where it keeps them, else from its
# profile.json with the canonical metrics derived again). Run it after a change to the grouping, the metrics, the
# analysis or the renderers; tests/test_examples.cpp then checks the files against what the renderers make of them.
set -euo pipefail
cd "$(dirname "$0")/.."
K=${KPROF:-build/release/kprof}
n=0
for d in examples/h200/profiles/* examples/h200/packages/* examples/h200/python/* examples/h200/mla-v4/* examples/h200/advice/*; do
  [ -f "$d/profile.json" ] || continue
  "$K" analyze "$d" --out "$d" --replace -q > /dev/null
  n=$((n + 1))
done
echo "re-analysed $n artifacts"
