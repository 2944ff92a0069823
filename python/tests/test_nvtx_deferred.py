"""libkprof_c's own NVTX ranges (plan stages, kprof.profile) wait until a tool listens: NVTX reads
NVTX_INJECTION64_PATH once, at a library's first NVTX call, so a range pushed before the first profiling window
would otherwise fix "nobody listens" for the whole process (on the H200, a plan run before the window cost every
later window its stage names). A stand-in NVTX tool (fake_gpu/fake_nvtx.cpp) shows which ranges arrive."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent / "fake_gpu"
CODE = """
import os, sys
from kprof import _capi
if sys.argv[1] == "late":
    _capi.nvtx_push("before"); _capi.nvtx_pop()        # nobody listens yet
    os.environ["NVTX_INJECTION64_PATH"] = sys.argv[2]  # what the first window (or ncu) sets
_capi.nvtx_push("after"); _capi.nvtx_pop()
"""


def nvtx_include() -> Path | None:
    for root in (os.environ.get("CUDA_HOME"), "/usr/local/cuda", "/usr"):
        if root and (Path(root) / "include" / "nvtx3" / "nvToolsExt.h").is_file():
            return Path(root) / "include"
    return None


@pytest.fixture(scope="module")
def fake_tool(tmp_path_factory):
    inc = nvtx_include()
    if not inc or not shutil.which("g++"):
        pytest.skip("NVTX v3 headers or g++ not found: the stand-in NVTX tool cannot be built")
    out = tmp_path_factory.mktemp("nvtx") / "libfake_nvtx.so"
    subprocess.run(["g++", "-shared", "-fPIC", "-I", str(inc), str(HERE / "fake_nvtx.cpp"), "-o", str(out)],
                   check=True)
    return out


def run(tmp_path, fake, mode):
    log = tmp_path / f"{mode}.log"
    env = dict(os.environ, FAKE_NVTX_LOG=str(log))
    env.pop("NVTX_INJECTION64_PATH", None)
    if mode == "early":
        env["NVTX_INJECTION64_PATH"] = str(fake)
    done = subprocess.run([sys.executable, "-c", CODE, mode, str(fake)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return log.read_text() if log.exists() else ""


def test_ranges_pushed_before_a_tool_listens_do_not_silence_later_ones(fake_tool, tmp_path):
    if run(tmp_path, fake_tool, "early") != "push after\npop\n":
        pytest.skip("this libkprof_c was built without NVTX (no CUDA toolkit at build time)")
    # Without the deferral the push before the variable was set initialised NVTX with no tool, and "after" was lost.
    assert run(tmp_path, fake_tool, "late") == "push after\npop\n"
