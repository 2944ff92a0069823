"""Builds the kprof package: the C++ core is built by CMake (or picked up, see below) and its libraries, the
command line and the data files are copied into the package. The package itself is pure Python over ctypes, so
the wheel is tagged py3-none-<platform>: any CPython 3.10+ on the same platform loads it.

Where the C++ parts come from:
  KPROF_BUILD_DIR=<dir>  take libkprof_c.so, kprof, kprof-kernels and libkprof_inject.so from that CMake build directory as they
                         are (CMake is not run); also a flat folder of them (scripts/device/pack.sh's build/dist)
  otherwise              the repository's build/release: `cmake --preset release` when it is not configured yet,
                         then `cmake --build build/release --target kprof_c kprof [kprof_inject]` (incremental: a
                         no-op after `scripts/test.sh` or any full build)
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover - wheel is a build requirement
    bdist_wheel = None

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _build_dir() -> Path:
    given = os.environ.get("KPROF_BUILD_DIR")
    if given:
        d = Path(given)
        if not d.is_absolute():  # pip runs this in python/: a relative path means the caller's directory
            d = Path(os.environ.get("PWD", os.getcwd())) / d
        d = d.resolve()
        if not (d / "libkprof_c.so").is_file():
            raise SystemExit(f"kprof: KPROF_BUILD_DIR={d} has no libkprof_c.so (build the kprof_c target there)")
        return d
    if not (REPO / "CMakeLists.txt").is_file():
        raise SystemExit("kprof: not inside the kprof repository and KPROF_BUILD_DIR is unset: nothing to build from "
                         "(install from the repository's python/ folder, or set KPROF_BUILD_DIR to a kprof build)")
    d = REPO / "build" / "release"
    if not (d / "CMakeCache.txt").is_file():
        subprocess.run(["cmake", "--preset", "release"], cwd=REPO, check=True)
    targets = ["kprof_c", "kprof"]
    listing = subprocess.run(["cmake", "--build", str(d), "--target", "help"], capture_output=True, text=True)
    for optional in ("kprof_inject", "kprof-kernels"):  # built only with the CUDA toolkit
        if optional in listing.stdout:
            targets.append(optional)
    jobs = os.environ.get("KPROF_BUILD_JOBS", "2")
    subprocess.run(["cmake", "--build", str(d), "-j", jobs, "--target", *targets], cwd=REPO, check=True)
    return d


def _data_dir(build: Path) -> Path:
    """kprof's data files (devices.json, thresholds.toml, metric lists): the repository's data/ when this python/ is
    inside it; else $KPROF_DATA_DIR; else the source tree the build directory was configured from (its CMakeCache);
    else a data/ folder beside the built files (a flat folder such as build/dist)."""
    candidates = [REPO / "data"]
    if os.environ.get("KPROF_DATA_DIR"):
        candidates.append(Path(os.environ["KPROF_DATA_DIR"]))
    cache = build / "CMakeCache.txt"
    if cache.is_file():
        for line in cache.read_text(errors="replace").splitlines():
            if line.startswith("CMAKE_HOME_DIRECTORY:"):
                candidates.append(Path(line.split("=", 1)[1]) / "data")
    candidates.append(build / "data")
    for c in candidates:
        if (c / "devices.json").is_file():
            return c
    raise SystemExit("kprof: no data folder (devices.json) found: set KPROF_DATA_DIR to the kprof source's data/")


class BuildWithCore(build_py):
    def run(self):
        super().run()
        build = _build_dir()
        pkg = Path(self.build_lib) / "kprof"
        lib, bin_, data = pkg / "_lib", pkg / "_bin", pkg / "_data"
        for d in (lib, bin_, data):
            d.mkdir(parents=True, exist_ok=True)
        shutil.copy2(build / "libkprof_c.so", lib / "libkprof_c.so")
        inject = build / "src" / "collect" / "cupti" / "libkprof_inject.so"
        if not inject.is_file():  # a flat folder of built files (scripts/device/pack.sh's build/dist)
            inject = build / "libkprof_inject.so"
        if inject.is_file():
            shutil.copy2(inject, lib / "libkprof_inject.so")
        for tool in ("kprof", "kprof-kernels"):  # kprof-kernels: the bundled packages (built with the CUDA toolkit)
            if (build / tool).is_file():
                shutil.copy2(build / tool, bin_ / tool)
        for f in _data_dir(build).iterdir():
            if f.is_file():
                shutil.copy2(f, data / f.name)


cmdclass = {"build_py": BuildWithCore}

if bdist_wheel is not None:
    class PlatformWheel(bdist_wheel):
        """Not tied to a Python version (ctypes, no extension module), but to the platform (a native library)."""

        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            _, _, plat = super().get_tag()
            return "py3", "none", plat

    cmdclass["bdist_wheel"] = PlatformWheel

setup(cmdclass=cmdclass)
