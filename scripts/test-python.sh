#!/usr/bin/env bash
# The Python package's tests (scripts/test.sh runs this after ctest): installs python/ into a fresh venv the way
# docs/python.md says — offline, `pip install --no-build-isolation` with Debian's setuptools, the C++ core taken
# from build/release — checks `import kprof` from outside the repository, then runs python/tests with pytest.
# GPU tests skip with their reason when there is no GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${KPROF_BUILD_DIR:-$PWD/build/release}
py=${KPROF_PYTHON:-/usr/bin/python3}
venv=$build/py-venv
rm -rf "$venv"
"$py" -m venv --system-site-packages "$venv"
KPROF_BUILD_DIR=$build "$venv/bin/pip" install --no-build-isolation --no-index --no-deps -q ./python
rm -rf python/build python/kprof.egg-info
(cd /tmp && "$venv/bin/python" -c "import kprof; print('import kprof:', kprof.__version__, 'core', kprof.library_version())")
KPROF_BINARY=$build/kprof "$venv/bin/python" -m pytest -q -rs -p no:cacheprovider python/tests "$@"
