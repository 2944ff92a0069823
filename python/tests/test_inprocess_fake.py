"""The in-process window end to end without a GPU: stand-ins for libcuda.so.1 (one "Fake GPU") and for
libkprof_inject.so (the real exports; each window writes a real kprof-trace/1 file with three launches of one
kernel) let kprof.profile run its whole path — GPU probe, the mode's environment, dlopen + InitializeInjection, the
window file, assembly, analysis, the artifact — in a subprocess. What it cannot show is CUPTI itself: the real
tracer inside a real CUDA process is a GPU test (test_profile.py)."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

HERE = Path(__file__).resolve().parent / "fake_gpu"


@pytest.fixture(scope="module")
def fakes(tmp_path_factory):
    if not shutil.which("g++") or not shutil.which("gcc"):
        pytest.skip("no compiler: the stand-in libraries cannot be built")
    d = tmp_path_factory.mktemp("fake_gpu")
    subprocess.run(["gcc", "-shared", "-fPIC", str(HERE / "fake_cuda.c"), "-o", str(d / "libcuda.so.1")], check=True)
    # The trace writer as libkprof_inject.so compiles it: with its temporary-file helper (src/collect/cupti/CMakeLists.txt).
    subprocess.run(["g++", "-std=c++20", "-O0", "-shared", "-fPIC", "-I", str(REPO / "src"), str(HERE / "fake_inject.cpp"),
                    str(REPO / "src" / "collect" / "trace" / "trace_writer.cpp"),
                    str(REPO / "src" / "util" / "atomic_file.cpp"), "-o", str(d / "libfake_inject.so")],
                   check=True)
    return d


def run(fakes, tmp_path, code):
    env = dict(os.environ, LD_LIBRARY_PATH=str(fakes), KPROF_INJECT_LIB=str(fakes / "libfake_inject.so"),
               KPROF_LOCK_DIR=str(tmp_path), TMPDIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def env_seen(dir_):
    return dict(line.split("=", 1) for line in (Path(dir_) / "trace.kptrace.env").read_text().splitlines() if "=" in line)


def test_event_windows_in_one_process(fakes, tmp_path):
    out = run(fakes, tmp_path, f"""
import json, kprof
r = kprof.profile(lambda: None, mode="event", out_dir={str(tmp_path / 'w1')!r}, kernel="fake")
with kprof.profile(mode="event", out_dir={str(tmp_path / 'w2')!r}, kernel="fake") as p:
    pass
try:
    kprof.profile(lambda: None, mode="annotation", out_dir={str(tmp_path / 'w3')!r})
    mixed = "accepted"
except kprof.UsageError as e:
    mixed = str(e)
print(json.dumps({{"gpu": kprof.gpu_status(), "stages": r.stages, "dir": str(r.dir), "device": r.profile["device"],
                  "second": p.result.stages, "mixed": mixed}}))
""")
    assert out["gpu"]["gpus"] == 1 and out["gpu"]["name"].startswith("Fake GPU")
    w1 = tmp_path / "w1"
    assert out["dir"] == str(w1)
    for f in ("trace.kptrace", "profile.json", "contract.md", "report.md", "timing.md"):
        assert (w1 / f).is_file(), f
    [row] = out["stages"]
    assert row["kernel"] == "fake_kernel" and row["launches"] == 3
    assert out["device"]["name"].startswith("Fake GPU")
    assert [s["launches"] for s in out["second"]] == [3], "the second window holds only its own launches"
    assert "tracer" in out["mixed"] and "new process" in out["mixed"]
    env = env_seen(w1)
    # event mode's record kinds, every variable set; the exit-time file goes to scratch, not into the artifact
    assert env["KPROF_TRACE_COPIES"] == "0" and env["KPROF_TRACE_SYNC"] == "0" and env["KPROF_TRACE_NVTX"] == "1"
    assert env["KPROF_TRACE_DRIVER"] == "1", "a Python process records driver API launches"
    assert env["KPROF_COUNTERS_FILE"] == ""
    assert not env["KPROF_TRACE_FILE"].startswith(str(w1))


def test_nsys_window_writes_the_timeline(fakes, tmp_path):
    out = run(fakes, tmp_path, f"""
import json, kprof
r = kprof.nsys_profile_plan(kprof.KernelPlan("fakeplan", [kprof.Stage("stage_a", lambda: None, flops=1e9,
                            min_bytes=1e6, precision="fp32")]), out_dir={str(tmp_path / 'root')!r}, bench_runs=2)
print(json.dumps({{"dir": str(r.dir), "stages": r.stages, "mode": r.mode, "kernel": r.kernel}}))
""")
    d = Path(out["dir"])
    assert d.is_relative_to(tmp_path / "root" / "nsys" / "fakeplan")
    assert out["mode"] == "nsys" and out["kernel"] == "fakeplan"
    for f in ("timeline.md", "kernels.csv", "trace.json"):
        assert (d / f).is_file(), f
    assert env_seen(d)["KPROF_TRACE_COPIES"] == "1"
