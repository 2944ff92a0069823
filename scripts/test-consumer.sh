#!/usr/bin/env bash
# The CMake package, end to end (a CTest test, CMakePackage.ConsumerBuildsAndRuns): `cmake --install` the build
# into a scratch prefix, configure and build tests/consumer against it with find_package(kprof CONFIG), run it on
# a bundled artifact, and check the installed command line runs from the prefix with its data files.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-$PWD/build/release}
work=$build/consumer-test
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work.install.log"
cmake -S tests/consumer -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release \
  > "$work.configure.log"
cmake --build "$work/build" > "$work.build.log"
out=$("$work/build/kprof_consumer" examples/h200/profiles/annotation_probe)
echo "$out"
grep -q "^c++: kernel=probe stages=" <<< "$out"
grep -q "^c api: version=.* ok=yes" <<< "$out"
# The installed kprof finds its data under <prefix>/share/kprof, not in the source tree.
env -u KPROF_DATA_DIR "$work/prefix/bin/kprof" analyze examples/h200/profiles/annotation_probe --no-write --json \
  | python3 -c 'import json,sys; d=json.load(sys.stdin); print("installed kprof:", d["kernel"], len(d["stages"]), "stages")'
test -f "$work/prefix/lib/cmake/kprof/kprofConfig.cmake"
test -f "$work/prefix/include/kprof/capi/kprof_c.h"
test -f "$work/prefix/share/kprof/devices.json"
