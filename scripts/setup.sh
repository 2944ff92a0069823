#!/usr/bin/env bash
# Installs what kprof needs to build and test (Debian packages). CI runs this too.
# Third-party libraries are header-only or static, so the kprof binary runs where these packages are absent.
# The Python ones build and test the Python package offline (scripts/test-python.sh).
set -euo pipefail
pkgs=(cmake ninja-build g++ nlohmann-json3-dev libcli11-dev libfmt-dev libtomlplusplus-dev libcsv-dev
      libgtest-dev python3 python3-venv python3-pip python3-setuptools python3-wheel python3-pytest
      clang libclang-rt-14-dev   # the fuzz preset: libFuzzer, ASan/UBSan (scripts/fuzz.sh, CI)
      xz-utils   # the larger held-out captures are .tar.xz (bench/diagnosis_corpus.hpp)
      slurmctld slurmd slurm-client munge)  # the slurm executor's test starts a one-node Slurm (tests/slurm/cluster.sh)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
